package redisstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

// TestPrefixesShareNothing: stores under two prefixes of one server see
// none of each other's sessions and checkpoints; the default prefix is
// "quiver:runtime:".
func TestPrefixesShareNothing(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	ctx := t.Context()
	a, b := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix())), open(t, srv)
	if _, err := a.Save(ctx, "s", []model.Message{model.UserMessage("a")}, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(ctx, runtime.Checkpoint{RunID: "r", Agent: "desk"}); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Load(ctx, "s"); err != nil || got.Version != 0 {
		t.Fatalf("another prefix loads %+v, %v; want nothing", got, err)
	}
	if got, err := b.List(ctx, runtime.SuspendedFilter{}); err != nil || len(got) != 0 {
		t.Fatalf("another prefix lists %+v, %v; want nothing", got, err)
	}
	if _, err := b.Take(ctx, "r", time.Now()); !errors.Is(err, runtime.ErrNotSuspended) {
		t.Fatalf("another prefix takes r: %v", err)
	}
	if keys, err := srv.Client(t).Keys(ctx, redisstore.DefaultPrefix+"*").Result(); err != nil || len(keys) != 1 || keys[0] != "quiver:runtime:format" {
		t.Fatalf("keys under the default prefix: %v, %v; want only its format", keys, err)
	}
}

// TestCloseAndClients: Open refuses an empty prefix; a closed store fails
// with ErrClosed; Close leaves a client given with WithClient open.
func TestCloseAndClients(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	ctx := t.Context()
	if _, err := redisstore.Open(ctx, srv.URL(), redisstore.WithPrefix("")); err == nil {
		t.Fatal("Open accepted an empty prefix")
	}
	if _, err := redisstore.Open(ctx, "http://nowhere"); err == nil {
		t.Fatal("Open accepted a URL that is not redis://")
	}
	c := srv.Client(t)
	s, err := redisstore.Open(ctx, "", redisstore.WithClient(c), redisstore.WithPrefix(redistest.NewPrefix()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "s"); !errors.Is(err, redisstore.ErrClosed) {
		t.Fatalf("Load after Close: %v, want ErrClosed", err)
	}
	if err := s.Put(ctx, runtime.Checkpoint{RunID: "r"}); !errors.Is(err, redisstore.ErrClosed) {
		t.Fatalf("Put after Close: %v, want ErrClosed", err)
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("the caller's client after Close: %v, want it open", err)
	}
}
