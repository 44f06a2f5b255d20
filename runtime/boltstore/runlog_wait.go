package boltstore

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Wait implements [runtime.RunLog]: it reads the run's last sequence
// number, then sleeps until an append in this process (the only one that
// can write the file), the timeout, ctx or Close. A Wait in progress when
// the store closes fails wrapping [ErrClosed].
func (l runLog) Wait(ctx context.Context, runID string, after int64, timeout time.Duration) (bool, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		// The channel is taken before the read: an append committed
		// after the read closes it, so no wake-up is missed.
		l.s.mu.Lock()
		changed := l.s.changed
		l.s.mu.Unlock()
		var has bool
		err := l.s.view(ctx, func(tx *bbolt.Tx) error {
			info, ok, err := storedRun(tx, []byte(runID))
			has = ok && info.LastSeq > after
			return err
		})
		if err != nil {
			return false, err
		}
		if has {
			return true, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, fmt.Errorf("boltstore: waiting on run %q: %w", runID, ctx.Err())
		case <-l.s.done:
			return false, l.s.closed(bolterrors.ErrDatabaseNotOpen)
		}
	}
}

// notify wakes the run log's waiters: an append committed.
func (s *Store) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
}
