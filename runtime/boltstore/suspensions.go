package boltstore

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/runtime"
)

// Put implements [runtime.SuspensionStore].
func (s *Store) Put(ctx context.Context, c runtime.Checkpoint) error {
	b, err := runtime.MarshalCheckpoint(c)
	if err != nil {
		return err
	}
	return s.update(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketCheckpoints).Put([]byte(c.RunID), b)
	})
}

// Take implements [runtime.SuspensionStore]: the checkpoint is read and
// deleted in one write transaction, so exactly one caller gets it. An
// expired checkpoint is deleted too, and reported. A record that does not
// decode is left in place and the error says why.
func (s *Store) Take(ctx context.Context, runID string, now time.Time) (runtime.Checkpoint, error) {
	var (
		out   runtime.Checkpoint
		taken error // the error of a take that still commits (expiry)
	)
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		bucket := tx.Bucket(bucketCheckpoints)
		b := bucket.Get([]byte(runID))
		if b == nil {
			taken = runtime.NotSuspended(runID)
			return nil
		}
		c, err := decodeCheckpoint([]byte(runID), b)
		if err != nil {
			return err
		}
		if err := bucket.Delete([]byte(runID)); err != nil {
			return fmt.Errorf("boltstore: delete the checkpoint of run %q: %w", runID, err)
		}
		if runtime.Expired(c, now) {
			taken = runtime.SuspensionExpired(c)
			return nil
		}
		out = c
		return nil
	})
	if err != nil {
		return runtime.Checkpoint{}, err
	}
	if taken != nil {
		return runtime.Checkpoint{}, taken
	}
	return out, nil
}

// List implements [runtime.SuspensionStore]: it decodes every checkpoint.
func (s *Store) List(ctx context.Context, f runtime.SuspendedFilter) ([]runtime.Checkpoint, error) {
	var out []runtime.Checkpoint
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		all, err := allCheckpoints(tx)
		if err != nil {
			return err
		}
		for _, c := range all {
			if f.Matches(c) {
				out = append(out, c)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Expire implements [runtime.SuspensionStore]: expired checkpoints are
// found and deleted in one write transaction.
func (s *Store) Expire(ctx context.Context, now time.Time) ([]runtime.Checkpoint, error) {
	var out []runtime.Checkpoint
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		all, err := allCheckpoints(tx)
		if err != nil {
			return err
		}
		bucket := tx.Bucket(bucketCheckpoints)
		for _, c := range all {
			if !runtime.Expired(c, now) {
				continue
			}
			if err := bucket.Delete([]byte(c.RunID)); err != nil {
				return fmt.Errorf("boltstore: delete the expired checkpoint of run %q: %w", c.RunID, err)
			}
			out = append(out, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// allCheckpoints decodes every checkpoint, without its state, in List
// order. Callers delete what they choose after the walk, never while a
// cursor walks the bucket.
func allCheckpoints(tx *bbolt.Tx) ([]runtime.Checkpoint, error) {
	var out []runtime.Checkpoint
	err := tx.Bucket(bucketCheckpoints).ForEach(func(k, v []byte) error {
		c, err := decodeCheckpoint(k, v)
		if err != nil {
			return err
		}
		c.State = nil
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	runtime.SortCheckpoints(out)
	return out, nil
}

// decodeCheckpoint decodes the record under key, which must hold the
// checkpoint of the run it names.
func decodeCheckpoint(key, b []byte) (runtime.Checkpoint, error) {
	c, err := runtime.UnmarshalCheckpoint(b)
	if err != nil {
		return runtime.Checkpoint{}, fmt.Errorf("boltstore: checkpoint of run %q: %w", key, err)
	}
	if c.RunID != string(key) {
		return runtime.Checkpoint{}, fmt.Errorf("boltstore: the record under run %q holds run %q's checkpoint: the file was written by something else; remove the record or the file", key, c.RunID)
	}
	return c, nil
}
