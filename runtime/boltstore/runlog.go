package boltstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/quiver-go/quiver/runtime"
)

// runLog is the store's [runtime.RunLog]: a type apart from Store, whose
// Expire is the suspension store's.
type runLog struct{ s *Store }

// RunLog implements [runtime.Store]: the run log kept in the store's file.
// A follower waiting on it ([runtime.FollowRunLog]) is woken in-process
// by each append: bbolt's file lock keeps every writer in this process.
func (s *Store) RunLog() runtime.RunLog { return runLog{s} }

// Append implements [runtime.RunLog]: the run's info is read, the rules
// applied ([runtime.PlanAppend]) and the events and info written in one
// write transaction.
func (l runLog) Append(ctx context.Context, owner string, events []runtime.EventRecord) error {
	if len(events) == 0 {
		return l.s.view(ctx, func(*bbolt.Tx) error { return nil })
	}
	wrote := false
	err := l.s.update(ctx, func(tx *bbolt.Tx) error {
		runID := []byte(events[0].RunID)
		info, _, err := storedRun(tx, runID)
		if err != nil {
			return err
		}
		evs := tx.Bucket(bucketRunEvents).Bucket(runID)
		next, add, err := runtime.PlanAppend(info, owner, events, func(seq int64) ([]byte, error) {
			var b []byte
			if evs != nil {
				b = evs.Get(seqKey(seq))
			}
			if b == nil {
				return nil, fmt.Errorf("boltstore: run %q's info says its last event is %d, but event %d is not stored: the file was damaged; remove the run's records or the file", runID, info.LastSeq, seq)
			}
			return b, nil
		})
		if err != nil || len(add) == 0 {
			return err
		}
		if evs == nil {
			if evs, err = tx.Bucket(bucketRunEvents).CreateBucket(runID); err != nil {
				return fmt.Errorf("boltstore: create the events bucket of run %q: %w", runID, err)
			}
		}
		for _, e := range add {
			if err := evs.Put(seqKey(e.Seq), e.Record); err != nil {
				return fmt.Errorf("boltstore: write event %d of run %q: %w", e.Seq, runID, err)
			}
		}
		b, err := marshalRunInfo(next)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketRuns).Put(runID, b); err != nil {
			return fmt.Errorf("boltstore: write the info of run %q: %w", runID, err)
		}
		wrote = true
		return nil
	})
	if err != nil {
		return err
	}
	if wrote {
		l.s.notify()
	}
	return nil
}

// Read implements [runtime.RunLog]: a cursor seeks the first event after
// after.
func (l runLog) Read(ctx context.Context, runID string, after int64, limit int) ([]runtime.EventRecord, error) {
	out := []runtime.EventRecord{}
	err := l.s.view(ctx, func(tx *bbolt.Tx) error {
		evs := tx.Bucket(bucketRunEvents).Bucket([]byte(runID))
		if evs == nil || after == math.MaxInt64 {
			return nil
		}
		c := evs.Cursor()
		for k, v := c.Seek(seqKey(max(after, 0) + 1)); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Next() {
			rec, err := decodeEvent(runID, k, v)
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Run implements [runtime.RunLog].
func (l runLog) Run(ctx context.Context, runID string) (runtime.RunInfo, error) {
	var (
		info runtime.RunInfo
		ok   bool
	)
	err := l.s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		info, ok, err = storedRun(tx, []byte(runID))
		return err
	})
	if err != nil {
		return runtime.RunInfo{}, err
	}
	if !ok {
		return runtime.RunInfo{}, fmt.Errorf("%w: %q has no event in %s (never appended, or expired)", runtime.ErrUnknownRun, runID, l.s.path)
	}
	return info, nil
}

// Runs implements [runtime.RunLog]: it decodes every run's info.
func (l runLog) Runs(ctx context.Context, f runtime.RunFilter) ([]runtime.RunInfo, error) {
	var out []runtime.RunInfo
	err := l.s.view(ctx, func(tx *bbolt.Tx) error {
		all, err := allRuns(tx)
		if err != nil {
			return err
		}
		for _, info := range all {
			if f.Matches(info) {
				out = append(out, info)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	runtime.SortRunsRecentFirst(out)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// Expire implements [runtime.RunLog]: the runs are found, and their info
// and events deleted, in one write transaction.
func (l runLog) Expire(ctx context.Context, before time.Time) ([]runtime.RunInfo, error) {
	var out []runtime.RunInfo
	err := l.s.update(ctx, func(tx *bbolt.Tx) error {
		out = nil
		all, err := allRuns(tx)
		if err != nil {
			return err
		}
		runs, events := tx.Bucket(bucketRuns), tx.Bucket(bucketRunEvents)
		for _, info := range all {
			if info.Status == runtime.StatusRunning || !info.UpdatedAt.Before(before) {
				continue
			}
			if err := runs.Delete([]byte(info.RunID)); err != nil {
				return fmt.Errorf("boltstore: delete the info of expired run %q: %w", info.RunID, err)
			}
			if err := events.DeleteBucket([]byte(info.RunID)); err != nil && !errors.Is(err, bolterrors.ErrBucketNotFound) {
				return fmt.Errorf("boltstore: delete the events of expired run %q: %w", info.RunID, err)
			}
			out = append(out, info)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	runtime.SortRunsOldestFirst(out)
	return out, nil
}

// storedRun decodes the run's info; the zero RunInfo and false when the
// run has none.
func storedRun(tx *bbolt.Tx, runID []byte) (runtime.RunInfo, bool, error) {
	b := tx.Bucket(bucketRuns).Get(runID)
	if b == nil {
		return runtime.RunInfo{}, false, nil
	}
	info, err := unmarshalRunInfo(runID, b)
	if err != nil {
		return runtime.RunInfo{}, false, err
	}
	return info, true, nil
}

// allRuns decodes every run's info, in key order. Callers delete what
// they choose after the walk, never while a cursor walks the bucket.
func allRuns(tx *bbolt.Tx) ([]runtime.RunInfo, error) {
	var out []runtime.RunInfo
	err := tx.Bucket(bucketRuns).ForEach(func(k, v []byte) error {
		info, err := unmarshalRunInfo(k, v)
		if err != nil {
			return err
		}
		out = append(out, info)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeEvent decodes the record under key k of run runID's events, which
// must hold that event of that run.
func decodeEvent(runID string, k, v []byte) (runtime.EventRecord, error) {
	seq, err := keySeq(k)
	if err != nil {
		return runtime.EventRecord{}, fmt.Errorf("boltstore: run %q: %w", runID, err)
	}
	rec, err := runtime.UnmarshalEvent(v)
	if err != nil {
		return runtime.EventRecord{}, fmt.Errorf("boltstore: event %d of run %q: %w", seq, runID, err)
	}
	if rec.RunID != runID || rec.Seq != seq {
		return runtime.EventRecord{}, fmt.Errorf("boltstore: the record under event %d of run %q holds event %d of run %q: the file was written by something else; remove the run's records or the file", seq, runID, rec.Seq, rec.RunID)
	}
	return rec, nil
}
