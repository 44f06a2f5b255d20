// Package stores opens the store (and, for a store that nodes share, the
// bus) a registry node runs on, by name: what `quiver registry serve
// --store` and `quiver bench registry --store` choose between.
package stores

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/server/redisbus"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/store/boltstore"
	"github.com/quiver-go/quiver/registry/store/redisstore"
)

// The store names.
const (
	// Embedded is one file in the data folder (bbolt): one node.
	Embedded = "embedded"
	// Redis is a Redis server that several nodes share.
	Redis = "redis"
)

// FileName is the embedded store's file in the data folder.
const FileName = "registry.db"

// DefaultPrefix is the Redis key prefix of the store and bus.
const DefaultPrefix = "quiver:registry:"

// Config says which store to open.
type Config struct {
	// Kind is Embedded or Redis.
	Kind string
	// Dir is the data folder (Embedded).
	Dir string
	// RedisURL is redis://host:port/db (Redis).
	RedisURL string
	// Prefix puts the Redis keys under it (DefaultPrefix when empty);
	// nodes of one registry share it.
	Prefix string
	// OpenTimeout is how long the embedded store waits for the data
	// folder's lock another process holds (boltstore's default, 1s, when
	// zero): a node started again right after its predecessor was killed
	// waits for the kernel to let the lock go.
	OpenTimeout time.Duration
}

// Node is an open store and the bus to give server.Config (nil: the
// server's local bus).
type Node struct {
	Store store.Store
	Bus   server.Bus
	// Describe says what the store is, for banners: never a password.
	Describe string
	// File is the embedded store's path ("" for Redis).
	File string
}

// Close closes the bus and the store.
func (n *Node) Close() error {
	var err error
	if n.Bus != nil {
		err = n.Bus.Close()
	}
	return errors.Join(err, n.Store.Close())
}

// Open opens the store c names.
func Open(ctx context.Context, c Config) (*Node, error) {
	switch c.Kind {
	case Embedded, "":
		if c.Dir == "" {
			return nil, errors.New("stores: the embedded store needs a data folder")
		}
		file := filepath.Join(c.Dir, FileName)
		var opts []boltstore.Option
		if c.OpenTimeout > 0 {
			opts = append(opts, boltstore.WithOpenTimeout(c.OpenTimeout))
		}
		st, err := boltstore.Open(file, opts...)
		if errors.Is(err, boltstore.ErrInUse) {
			return nil, inUseError(fmt.Sprintf("data folder %s is in use by another registry (%s is locked): stop that registry, or use another data folder", c.Dir, file))
		}
		if err != nil {
			return nil, err
		}
		return &Node{Store: st, Describe: "embedded bbolt, " + file, File: file}, nil
	case Redis:
		if c.RedisURL == "" {
			return nil, errors.New("stores: the Redis store needs a Redis URL (redis://host:port/0)")
		}
		prefix := c.Prefix
		if prefix == "" {
			prefix = DefaultPrefix
		}
		st, err := redisstore.Open(ctx, c.RedisURL, redisstore.WithPrefix(prefix))
		if err != nil {
			return nil, err
		}
		bus, err := redisbus.New(ctx, c.RedisURL, redisbus.WithPrefix(prefix))
		if err != nil {
			st.Close()
			return nil, err
		}
		return &Node{Store: st, Bus: bus, Describe: fmt.Sprintf("redis %s, keys under %q", redact(c.RedisURL), prefix)}, nil
	}
	return nil, fmt.Errorf("stores: unknown store %q: want %s or %s", c.Kind, Embedded, Redis)
}

// redact drops a URL's password.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// inUseError is the error of a data folder another process holds: its
// message says what to do, and it matches boltstore.ErrInUse (errors.Is).
type inUseError string

func (e inUseError) Error() string { return string(e) }
func (e inUseError) Unwrap() error { return boltstore.ErrInUse }
