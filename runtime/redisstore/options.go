package redisstore

import (
	"errors"

	"github.com/redis/go-redis/v9"
)

// Option configures Open.
type Option func(*config)

// config is what the options set.
type config struct {
	prefix string
	client redis.UniversalClient
}

// DefaultPrefix is the key prefix of a store opened without WithPrefix.
const DefaultPrefix = "quiver:runtime:"

func defaultConfig() config {
	return config{prefix: DefaultPrefix}
}

func (c config) check() error {
	if c.prefix == "" {
		return errors.New("redisstore: WithPrefix(\"\"): every key of the store is under its prefix; give a non-empty one such as \"quiver:runtime:\"")
	}
	return nil
}

// WithPrefix puts every key of the store under p (default
// "quiver:runtime:"). Runtimes that continue each other's runs use the
// same prefix; stores with different prefixes share nothing. On Redis
// Cluster put the prefix in a hash tag, "{quiver:runtime}:", so that every
// key is in one slot (List and Expire reach keys they do not declare).
func WithPrefix(p string) Option {
	return func(c *config) { c.prefix = p }
}

// WithClient makes the store use c instead of a client of its own: Open
// ignores its URL and Close leaves c open (it is the caller's to close).
func WithClient(c redis.UniversalClient) Option {
	return func(cfg *config) { cfg.client = c }
}
