package redisstore_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

// TestExpiryToTheNanosecond: a checkpoint expires exactly when
// runtime.Expired says, not a score's rounding earlier or later: one
// nanosecond before its ExpiresAt it is kept, at it it expires.
func TestExpiryToTheNanosecond(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	s := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix()))
	ctx := t.Context()
	at := time.Date(2026, 12, 1, 12, 0, 0, 123456789, time.UTC)
	for _, id := range []string{"expired", "taken"} {
		if err := s.Put(ctx, runtime.Checkpoint{RunID: id, Agent: "desk", SuspendedAt: at.Add(-time.Hour), ExpiresAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.Expire(ctx, at.Add(-time.Nanosecond)); err != nil || len(got) != 0 {
		t.Fatalf("Expire a nanosecond before = %+v, %v; want nothing", got, err)
	}
	got, err := s.Expire(ctx, at)
	if err != nil || len(got) != 2 || !got[0].ExpiresAt.Equal(at) {
		t.Fatalf("Expire at ExpiresAt = %+v, %v; want both", got, err)
	}
	// Put again, one is taken at its expiry: removed and reported.
	if err := s.Put(ctx, runtime.Checkpoint{RunID: "taken", Agent: "desk", SuspendedAt: at.Add(-time.Hour), ExpiresAt: at}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "taken", at); !errors.Is(err, runtime.ErrSuspensionExpired) {
		t.Fatalf("Take at ExpiresAt: %v, want ErrSuspensionExpired", err)
	}
	if got, err := s.Expire(ctx, at.Add(time.Hour)); err != nil || len(got) != 0 {
		t.Fatalf("Expire after the take = %+v, %v; want nothing: the take removed it from the expiry index", got, err)
	}
}

// TestConcurrentExpireReportsEachOnce: expirers on two Store values (two
// clients, as two processes) expire at once; every expired checkpoint is
// reported by exactly one of them.
func TestConcurrentExpireReportsEachOnce(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{})
	p := redistest.NewPrefix()
	a, b := open(t, srv, redisstore.WithPrefix(p)), open(t, srv, redisstore.WithPrefix(p))
	ctx := t.Context()
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	const n = 60
	for i := range n {
		if err := a.Put(ctx, runtime.Checkpoint{RunID: fmt.Sprint("r", i), Agent: "desk", SuspendedAt: at, ExpiresAt: at.Add(time.Duration(i) * time.Millisecond)}); err != nil {
			t.Fatal(err)
		}
	}
	reported := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 8 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			// Expirers at different instants; the last ones are after
			// every expiry.
			got, err := s.Expire(ctx, at.Add(time.Duration(i*10)*time.Millisecond))
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			for _, c := range got {
				reported[c.RunID]++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(reported) != n {
		t.Fatalf("%d of %d expired checkpoints reported", len(reported), n)
	}
	for id, k := range reported {
		if k != 1 {
			t.Errorf("%s reported %d times", id, k)
		}
	}
}
