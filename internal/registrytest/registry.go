package registrytest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/stores"
	"github.com/quiver-go/quiver/toolcall"
)

// Registry is a registry node (registry/node) running in the test's
// process.
type Registry struct {
	URL     string
	Service *server.Service
	Store   store.Store
	Dir     string
	Addr    string
	node    *node.Node
	opts    Options
}

// Restart closes r and starts a registry on the same data folder and
// address.
func (r *Registry) Restart(t testing.TB) *Registry {
	t.Helper()
	r.Close()
	o := r.opts
	o.Dir, o.Addr = r.Dir, r.Addr
	return Start(t, o)
}

// Options tune Start; zero fields take the server's defaults except where
// said.
type Options struct {
	// Dir is the data folder; a new temporary one when empty.
	Dir string
	// Addr is the loopback address to listen on; empty picks a free port.
	// A restarted registry listens where the old one did.
	Addr string
	// RedisURL, when set, runs the node on the Redis store and bus there
	// (Dir is then unused); nodes with the same RedisURL and Prefix share
	// one registry.
	RedisURL string
	// Prefix is the Redis key prefix ("quiver:registry:" when empty).
	Prefix string
	// Keys configures API keys; nil serves everyone as admin.
	Keys *server.Keys
	// LeaseTTL defaults to 2s here, so lease tests stay short.
	LeaseTTL        time.Duration
	MaxBodyBytes    int64
	MaxPayloadBytes int64
	// ResultRetention and ForgetPayloads are the server's retention
	// options (its defaults when zero).
	ResultRetention time.Duration
	ForgetPayloads  bool
	// AuditLog receives the registry's audit lines (discarded when nil).
	AuditLog *slog.Logger
	// BodyTimeout and MaxReadingBodies take the server's defaults when zero.
	BodyTimeout      time.Duration
	MaxReadingBodies int
	MaxQueue         int
	// MaxCallsPerKey is the server's per-key bound on open calls.
	MaxCallsPerKey int
	PublishedGrace time.Duration
	PingInterval   time.Duration
}

// Start runs a registry until the test ends.
func Start(t testing.TB, o Options) *Registry {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.LeaseTTL == 0 {
		o.LeaseTTL = 2 * time.Second
	}
	sc := stores.Config{Kind: stores.Embedded, Dir: o.Dir}
	if o.RedisURL != "" {
		sc = stores.Config{Kind: stores.Redis, RedisURL: o.RedisURL, Prefix: o.Prefix}
	}
	n, err := node.Start(context.Background(), node.Config{
		Store: sc,
		Server: server.Config{
			Keys: o.Keys, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			LeaseTTL: o.LeaseTTL, MaxBodyBytes: o.MaxBodyBytes, MaxPayloadBytes: o.MaxPayloadBytes, MaxQueue: o.MaxQueue, MaxCallsPerKey: o.MaxCallsPerKey,
			PublishedGrace: o.PublishedGrace, PingInterval: o.PingInterval,
			BodyTimeout: o.BodyTimeout, MaxReadingBodies: o.MaxReadingBodies, AuditLog: o.AuditLog,
			ResultRetention: o.ResultRetention, ForgetPayloads: o.ForgetPayloads,
		},
		Addr: o.Addr,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &Registry{URL: n.URL, Addr: n.Addr, Service: n.Service, Store: n.Store, Dir: o.Dir, node: n, opts: o}
	t.Cleanup(r.Close)
	return r
}

// Close stops the registry as a crash would for its clients — every
// connection cut at once (node.Node.Abort) — and closes its store
// (idempotent).
func (r *Registry) Close() { _ = r.node.Abort() }

// Client returns a client of r sending key.
func (r *Registry) Client(t testing.TB, key string) *registry.Client {
	t.Helper()
	var opts []registry.ClientOption
	if key != "" {
		opts = append(opts, registry.WithAPIKey(key))
	}
	c, err := registry.NewClient(r.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Serve runs a provider of decl on c until the test ends or the returned
// stop is called; stop waits for Serve to return and gives its error.
func Serve(t testing.TB, c *registry.Client, reg registry.Registration, exec toolcall.Executor) (stop func() error) {
	t.Helper()
	if reg.Logger == nil {
		reg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- registry.Serve(ctx, c, reg, exec) }()
	var stopped bool
	var result error
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			result = <-done
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}
