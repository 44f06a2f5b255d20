package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/quiver-go/quiver/registry/stores"
)

// envRedisURL stands for --redis-url when neither it nor --redis-url-file
// is given.
const envRedisURL = "QUIVER_REDIS_URL"

// storeFlags are --store, --redis-url, --redis-url-file and --redis-prefix,
// shared by the commands that run registry nodes.
type storeFlags struct {
	kind, redisURL, prefix string
	// redisURLFile is --redis-url-file: the file holding the URL, which
	// may carry a password and so is kept out of the process list that
	// --redis-url shows every user.
	redisURLFile string
	flags        *pflag.FlagSet
}

func (s *storeFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	s.flags = f
	f.StringVar(&s.kind, "store", stores.Embedded, "where the registry keeps its state: embedded (one file in --data, one node) or redis (shared by every node given the same --redis-url and --redis-prefix)")
	// No default shown: $QUIVER_REDIS_URL may carry a password, and --help
	// would print it.
	f.StringVar(&s.redisURL, "redis-url", "", "Redis `URL` for --store redis, e.g. redis://127.0.0.1:6379/0; $"+envRedisURL+" when neither --redis-url nor --redis-url-file is given. Every user sees it in ps: a URL with a password belongs in --redis-url-file or $"+envRedisURL)
	f.StringVar(&s.redisURLFile, "redis-url-file", "", "read the Redis URL from `FILE` (readable by you only, one trailing newline dropped)")
	f.StringVar(&s.prefix, "redis-prefix", stores.DefaultPrefix, "Redis key `PREFIX` of the registry's keys and channels, for --store redis")
}

// check validates the flags and resolves the Redis URL: --redis-url-file,
// --redis-url or $QUIVER_REDIS_URL, in this order.
func (s *storeFlags) check() error {
	switch s.kind {
	case stores.Embedded:
		return nil
	case stores.Redis:
	default:
		return usagef("--store %q: want embedded or redis", s.kind)
	}
	urlGiven, fileGiven := s.changed("redis-url"), s.changed("redis-url-file")
	switch {
	case urlGiven && fileGiven:
		return usagef("--redis-url and --redis-url-file both give the Redis URL: pass one (--redis-url-file keeps a password out of the process list)")
	case fileGiven && s.redisURLFile == "":
		return usagef(`--redis-url-file "": name the file holding the Redis URL`)
	case !urlGiven && !fileGiven:
		s.redisURL = os.Getenv(envRedisURL)
	}
	if s.redisURL == "" && !fileGiven {
		return usagef("--store redis needs --redis-url URL, --redis-url-file FILE or $%s, e.g. redis://127.0.0.1:6379/0", envRedisURL)
	}
	if fileGiven {
		url, err := readSecretFile("--redis-url-file", s.redisURLFile)
		if err != nil {
			return err
		}
		s.redisURL = url
	}
	return nil
}

// changed reports whether the flag name was given.
func (s *storeFlags) changed(name string) bool { return s.flags != nil && s.flags.Changed(name) }

// config is the store to open, the embedded one in dir.
func (s *storeFlags) config(dir string) stores.Config {
	return stores.Config{Kind: s.kind, Dir: dir, RedisURL: s.redisURL, Prefix: s.prefix}
}
