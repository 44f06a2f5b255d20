package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/registry/stores"
)

// storeFlags are --store, --redis-url and --redis-prefix, shared by the
// commands that run registry nodes.
type storeFlags struct {
	kind, redisURL, prefix string
}

func (s *storeFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.kind, "store", stores.Embedded, "where the registry keeps its state: embedded (one file in --data, one node) or redis (shared by every node given the same --redis-url and --redis-prefix)")
	f.StringVar(&s.redisURL, "redis-url", os.Getenv("QUIVER_REDIS_URL"), "Redis `URL` for --store redis, e.g. redis://127.0.0.1:6379/0 (default $QUIVER_REDIS_URL)")
	f.StringVar(&s.prefix, "redis-prefix", stores.DefaultPrefix, "Redis key `PREFIX` of the registry's keys and channels, for --store redis")
}

// check validates the flags.
func (s *storeFlags) check() error {
	switch s.kind {
	case stores.Embedded:
		return nil
	case stores.Redis:
		if s.redisURL == "" {
			return usagef("--store redis needs --redis-url URL (or QUIVER_REDIS_URL), e.g. redis://127.0.0.1:6379/0")
		}
		return nil
	}
	return usagef("--store %q: want embedded or redis", s.kind)
}

// config is the store to open, the embedded one in dir.
func (s *storeFlags) config(dir string) stores.Config {
	return stores.Config{Kind: s.kind, Dir: dir, RedisURL: s.redisURL, Prefix: s.prefix}
}
