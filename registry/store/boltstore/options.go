package boltstore

import (
	"fmt"
	"time"
)

// Option configures Open.
type Option func(*config)

// config is what the options set.
type config struct {
	clock          func() time.Time
	changeLogLimit int
	openTimeout    time.Duration
}

func defaultConfig() config {
	return config{clock: time.Now, changeLogLimit: 1000, openTimeout: time.Second}
}

func (c config) check() error {
	if c.changeLogLimit < 1 {
		return fmt.Errorf("boltstore: change log limit %d: keep at least 1 change", c.changeLogLimit)
	}
	if c.openTimeout <= 0 {
		return fmt.Errorf("boltstore: open timeout %v: must be positive", c.openTimeout)
	}
	return nil
}

// WithClock sets the clock leases expire on and records are stamped with
// (default time.Now). A nil clock keeps the default.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithChangeLogLimit sets how many of the most recent catalog changes are
// kept (default 1000, at least 1); Changes reports a reset to a caller
// asking for older ones.
func WithChangeLogLimit(n int) Option {
	return func(c *config) { c.changeLogLimit = n }
}

// WithOpenTimeout sets how long Open waits for the file lock another
// process may hold (default 1s, positive).
func WithOpenTimeout(d time.Duration) Option {
	return func(c *config) { c.openTimeout = d }
}
