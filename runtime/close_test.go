package runtime

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// stallingLog is a shared run log whose second renewal — the renewal
// loop's first — blocks until its context ends, and which records when
// that renewal returned and whether the loop went on to read the stale
// runs.
type stallingLog struct {
	RunLog
	renewals      atomic.Int32
	inRenewal     chan struct{}
	renewReturned atomic.Bool
	staleAfter    atomic.Bool
}

func (l *stallingLog) Renew(ctx context.Context, owner string, until time.Time) error {
	if l.renewals.Add(1) == 2 {
		close(l.inRenewal)
		<-ctx.Done()
		l.renewReturned.Store(true)
		return ctx.Err()
	}
	return l.RunLog.Renew(ctx, owner, until)
}

func (l *stallingLog) Stale(ctx context.Context, now time.Time) ([]RunInfo, error) {
	if l.renewReturned.Load() {
		l.staleAfter.Store(true)
	}
	return l.RunLog.Stale(ctx, now)
}

func TestCloseCancelsALeaseRenewalInProgressAndWaitsForIt(t *testing.T) {
	log := &stallingLog{RunLog: NewMemoryRunLog(), inRenewal: make(chan struct{})}
	rt, err := New(WithRunLog(log), WithRunLease(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	<-log.inRenewal // the loop's renewal is stalled in the store
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	// When Close returns the loop has ended: its renewal was cancelled and
	// the rest of its pass is done, so a store may be closed now.
	if !log.renewReturned.Load() || !log.staleAfter.Load() {
		t.Fatalf("Close returned while the lease loop was still running (renewal returned: %v, pass finished: %v)", log.renewReturned.Load(), log.staleAfter.Load())
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
}
