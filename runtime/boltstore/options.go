package boltstore

import (
	"fmt"
	"time"
)

// Option configures [Open].
type Option func(*config)

// config is what the options set.
type config struct {
	openTimeout time.Duration
}

func defaultConfig() config {
	return config{openTimeout: time.Second}
}

func (c config) check() error {
	if c.openTimeout <= 0 {
		return fmt.Errorf("boltstore: open timeout %v: must be positive (WithOpenTimeout)", c.openTimeout)
	}
	return nil
}

// WithOpenTimeout sets how long Open waits for the file lock another
// process may hold before failing with [ErrInUse] (default 1s, positive).
func WithOpenTimeout(d time.Duration) Option {
	return func(c *config) { c.openTimeout = d }
}
