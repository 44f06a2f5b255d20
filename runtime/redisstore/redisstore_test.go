package redisstore_test

import (
	"testing"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
	"github.com/quiver-go/quiver/runtime/storetest"
)

// open opens a store (with its own client) on srv, closed at the test's
// cleanup.
func open(t testing.TB, srv *redistest.Server, opts ...redisstore.Option) *redisstore.Store {
	t.Helper()
	s, err := redisstore.Open(t.Context(), srv.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConformance runs the suite on one redis-server, each subtest's store
// under a prefix of its own.
func TestConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	storetest.Run(t, func(t *testing.T) runtime.Store {
		return open(t, srv, redisstore.WithPrefix(redistest.NewPrefix()))
	})
}

// TestConformanceShared: two Store values, each with its own client (two
// processes), on one prefix.
func TestConformanceShared(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	storetest.RunShared(t, func(t *testing.T) (a, b runtime.Store) {
		p := redistest.NewPrefix()
		return open(t, srv, redisstore.WithPrefix(p)), open(t, srv, redisstore.WithPrefix(p))
	})
}

// TestRunsOnTheStore runs whole runs on two runtimes, each with its own
// client, sharing one prefix: two processes on one Redis.
func TestRunsOnTheStore(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	storetest.RunRuntime(t, func(t *testing.T) (a, b runtime.Store) {
		p := redistest.NewPrefix()
		return open(t, srv, redisstore.WithPrefix(p)), open(t, srv, redisstore.WithPrefix(p))
	})
}
