package boltstore_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/store/boltstore"
	"github.com/quiver-go/quiver/registry/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, factory(8))
}

// factory opens stores in temporary folders and reopens them from their
// file, with the same clock.
func factory(changeLogLimit int) storetest.Factory {
	type opened struct {
		path  string
		clock func() time.Time
	}
	var mu sync.Mutex
	files := map[store.Store]opened{}
	open := func(t *testing.T, o opened) store.Store {
		s, err := boltstore.Open(o.path, boltstore.WithClock(o.clock), boltstore.WithChangeLogLimit(changeLogLimit))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		mu.Lock()
		files[s] = o
		mu.Unlock()
		return s
	}
	return storetest.Factory{
		Open: func(t *testing.T, clock func() time.Time) store.Store {
			return open(t, opened{filepath.Join(t.TempDir(), "registry.db"), clock})
		},
		Reopen: func(t *testing.T, s store.Store) store.Store {
			mu.Lock()
			o := files[s]
			mu.Unlock()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return open(t, o)
		},
		ChangeLogLimit: changeLogLimit,
	}
}

func openTemp(t testing.TB) (*boltstore.Store, string) {
	path := filepath.Join(t.TempDir(), "registry.db")
	s, err := boltstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestSecondOpenFails(t *testing.T) {
	_, path := openTemp(t)
	began := time.Now()
	_, err := boltstore.Open(path, boltstore.WithOpenTimeout(50*time.Millisecond))
	if !errors.Is(err, boltstore.ErrInUse) || !strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), path) {
		t.Fatalf("second Open: %v, want ErrInUse naming %s", err, path)
	}
	if waited := time.Since(began); waited > 2*time.Second {
		t.Fatalf("second Open waited %v", waited)
	}
}

func TestOpenRefusesBadOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	for _, o := range []boltstore.Option{boltstore.WithChangeLogLimit(0), boltstore.WithOpenTimeout(0)} {
		if _, err := boltstore.Open(path, o); err == nil {
			t.Fatal("Open accepted a bad option")
		}
	}
}

func TestClosed(t *testing.T) {
	s, _ := openTemp(t)
	ctx := t.Context()
	r := store.Registration{Toolset: "weather", Revision: "1", Fingerprint: "fp", Token: "tok"}
	reg, err := s.Register(ctx, store.RegisterInput{Registration: r, MaxInFlight: 1, TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	_, err = s.Renew(ctx, reg.Lease.ID)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, boltstore.ErrClosed) {
			t.Fatalf("%s after Close: %v, want ErrClosed", what, err)
		}
	}
	check("Renew", err)
	_, _, err = s.AcceptCall(ctx, store.Call{ID: "c1", Toolset: "weather", Token: "tok"}, "")
	check("AcceptCall", err)
	_, err = s.Catalog(ctx)
	check("Catalog", err)
	_, err = s.GetCall(ctx, "c1")
	check("GetCall", err)
	_, _, _, err = s.Changes(ctx, 0)
	check("Changes", err)
}

// TestCloseUnderLoad closes the store while writers are busy: each writer
// gets an answer, success or ErrClosed, none hangs.
func TestCloseUnderLoad(t *testing.T) {
	s, _ := openTemp(t)
	ctx := t.Context()
	r := store.Registration{Toolset: "weather", Revision: "1", Fingerprint: "fp", Token: "tok"}
	if _, err := s.Register(ctx, store.RegisterInput{Registration: r, MaxInFlight: 1, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				c := store.Call{ID: fmt.Sprintf("%d-%d", w, i), Toolset: "weather", Token: "tok"}
				_, _, err := s.AcceptCall(ctx, c, "")
				if errors.Is(err, boltstore.ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("AcceptCall: %v", err)
					return
				}
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("writers still waiting 5s after Close")
	}
}

func TestCanceledContext(t *testing.T) {
	s, _ := openTemp(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := store.Registration{Toolset: "weather", Revision: "1", Fingerprint: "fp", Token: "tok"}
	_, err := s.Register(ctx, store.RegisterInput{Registration: r, MaxInFlight: 1, TTL: time.Minute})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Register(canceled) = %v", err)
	}
	if cat, err := s.Catalog(t.Context()); err != nil || len(cat.Registrations) != 0 {
		t.Fatalf("catalog after a canceled Register: %+v, %v", cat, err)
	}
}
