package redisstore

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Option configures Open.
type Option func(*config)

// config is what the options set.
type config struct {
	prefix         string
	clock          func() time.Time // nil: the Redis server's TIME
	changeLogLimit int
	client         redis.UniversalClient
}

// DefaultPrefix is the key prefix of a store opened without WithPrefix.
const DefaultPrefix = "quiver:registry:"

func defaultConfig() config {
	return config{prefix: DefaultPrefix, changeLogLimit: 1000}
}

func (c config) check() error {
	if c.prefix == "" {
		return fmt.Errorf("redisstore: empty key prefix: every key of the store is under its prefix")
	}
	if c.changeLogLimit < 1 {
		return fmt.Errorf("redisstore: change log limit %d: keep at least 1 change", c.changeLogLimit)
	}
	return nil
}

// WithPrefix puts every key of the store under p (default
// "quiver:registry:"). Registries sharing one state use the same prefix;
// stores with different prefixes share nothing. On Redis Cluster put the
// prefix in a hash tag, "{quiver:registry}:", so that every key is in one
// slot (each script reaches many of them).
func WithPrefix(p string) Option {
	return func(c *config) { c.prefix = p }
}

// WithClock sets the clock leases expire on and records are stamped with.
// By default the store reads the Redis server's clock (TIME, inside each
// script), so that leases do not depend on the clocks of the registry
// nodes; tests set a clock they move. A nil clock keeps the default.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.clock = now }
}

// WithChangeLogLimit sets how many of the most recent catalog changes are
// kept (default 1000, at least 1); Changes reports a reset to a caller
// asking for older ones. Stores sharing a prefix should use the same
// limit: the one writing a change trims the log to its own.
func WithChangeLogLimit(n int) Option {
	return func(c *config) { c.changeLogLimit = n }
}

// WithClient makes the store use c instead of a client of its own: Open
// ignores its URL and Close leaves c open (it is the caller's to close).
func WithClient(c redis.UniversalClient) Option {
	return func(cfg *config) { cfg.client = c }
}
