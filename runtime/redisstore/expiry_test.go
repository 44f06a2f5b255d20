package redisstore_test

import (
	"errors"
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
	s := open(t, srv, redisstore.WithPrefix(newPrefix()))
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
