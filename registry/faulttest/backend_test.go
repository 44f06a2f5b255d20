package faulttest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/store/boltstore"
	"github.com/quiver-go/quiver/registry/store/redisstore"
	"github.com/quiver-go/quiver/registry/stores"
)

// The kinds of store a registry of these tests runs on.
const (
	// boltKind is the embedded store in a data folder, with the server's
	// local bus: a registry of one node.
	boltKind = "bolt"
	// redisKind is the Redis store and bus on a redis-server of the test:
	// the registry's state outlives its node processes, and every node on
	// the server (with the backend's prefix) shares it.
	redisKind = "redis"
)

// storeKinds are the stores the one-node scenarios run on (eachStore).
var storeKinds = []string{boltKind, redisKind}

// backend is where a test's registry keeps its state. "Restarting the
// registry on its data" means a new node process on the same data folder
// (bolt) or on the same Redis server and prefix (redis).
type backend struct {
	kind string
	// redis is the test's redis-server (redis only); prefix its keys'.
	redis  *redistest.Server
	prefix string
	// via, when set, is the URL the registries reach Redis at (a proxy).
	via string
}

// newBackend returns a backend of kind; for redis it starts a redis-server
// of the test (killed when the test ends), without persistence.
func newBackend(t *testing.T, kind string) *backend {
	t.Helper()
	switch kind {
	case boltKind:
		return &backend{kind: kind}
	case redisKind:
		return newRedisBackend(t, false)
	}
	t.Fatalf("unknown store kind %q", kind)
	return nil
}

// newRedisBackend starts a redis-server of the test; with aof, every write
// it acknowledged survives its SIGKILL (appendfsync always).
func newRedisBackend(t *testing.T, aof bool) *backend {
	t.Helper()
	return &backend{kind: redisKind, redis: redistest.Start(t, redistest.Options{AOF: aof}), prefix: "faulttest:"}
}

// eachStore runs scenario once per store kind, as parallel subtests named
// after the kind ("bolt", "redis"), each on a backend of its own.
func eachStore(t *testing.T, scenario func(t *testing.T, b *backend)) {
	t.Helper()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			scenario(t, newBackend(t, kind))
		})
	}
}

// sub is a backend for one of several registries of a test that share
// b's redis-server: its keys are under a prefix of their own. (A bolt
// registry has a data folder of its own anyway.)
func (b *backend) sub(name string) *backend {
	c := *b
	if c.kind == redisKind {
		c.prefix += name + ":"
	}
	return &c
}

// url is the URL of the backend's Redis, as registries reach it.
func (b *backend) url() string {
	if b.via != "" {
		return b.via
	}
	return b.redis.URL()
}

// start runs an in-process registry node on the backend (registrytest.Start
// with o, its store options set).
func (b *backend) start(t *testing.T, o registrytest.Options) *registrytest.Registry {
	t.Helper()
	if b.kind == redisKind {
		o.RedisURL, o.Prefix = b.url(), b.prefix
	}
	return registrytest.Start(t, o)
}

// stores says which store a node of the backend opens: the embedded store
// in dir (with the server's local bus) for bolt; the Redis store and bus
// for redis.
func (b *backend) stores(dir string) stores.Config {
	if b.kind != redisKind {
		return stores.Config{Kind: stores.Embedded, Dir: dir}
	}
	return stores.Config{Kind: stores.Redis, RedisURL: b.url(), Prefix: b.prefix}
}

// readStore opens the backend's store to read the records a registry left
// (once its processes are gone: the embedded store's file is locked while
// a registry has it open); it is closed when the test ends.
func (b *backend) readStore(t *testing.T, dir string) store.Store {
	t.Helper()
	var st store.Store
	var err error
	if b.kind == redisKind {
		st, err = redisstore.Open(context.Background(), b.redis.URL(), redisstore.WithPrefix(b.prefix))
	} else {
		st, err = boltstore.Open(filepath.Join(dir, "registry.db"))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// env is the environment of a registry process on the backend, with its
// data in dir (bolt).
func (b *backend) env(dir string) []string {
	if b.kind == redisKind {
		return []string{redisURLEnv + "=" + b.url(), redisPrefixEnv + "=" + b.prefix}
	}
	return []string{dirEnv + "=" + dir}
}
