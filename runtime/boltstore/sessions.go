package boltstore

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
)

// Load implements [runtime.SessionStore].
func (s *Store) Load(ctx context.Context, sessionID string) (runtime.Session, error) {
	var out runtime.Session
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		out, _, err = storedSession(tx, sessionID)
		return err
	})
	if err != nil {
		return runtime.Session{}, err
	}
	return out, nil
}

// Save implements [runtime.SessionStore]: the version is compared and the
// transcript written in one write transaction.
func (s *Store) Save(ctx context.Context, sessionID string, msgs []model.Message, expected int64) (int64, error) {
	b, err := runtime.MarshalSession(sessionID, runtime.Session{Messages: msgs, Version: expected + 1})
	if err != nil {
		return 0, err
	}
	err = s.update(ctx, func(tx *bbolt.Tx) error {
		cur, _, err := storedSession(tx, sessionID)
		if err != nil {
			return err
		}
		if cur.Version != expected {
			return fmt.Errorf("%w: session %q is at version %d, the run loaded version %d", runtime.ErrSessionConflict, sessionID, cur.Version, expected)
		}
		return tx.Bucket(bucketSessions).Put([]byte(sessionID), b)
	})
	if err != nil {
		return 0, err
	}
	return expected + 1, nil
}

// Delete implements [runtime.SessionStore].
func (s *Store) Delete(ctx context.Context, sessionID string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSessions).Delete([]byte(sessionID))
	})
}

// storedSession decodes the session's record; the zero Session and false
// when there is none.
func storedSession(tx *bbolt.Tx, sessionID string) (runtime.Session, bool, error) {
	b := tx.Bucket(bucketSessions).Get([]byte(sessionID))
	if b == nil {
		return runtime.Session{}, false, nil
	}
	sess, err := runtime.UnmarshalSession(b)
	if err != nil {
		return runtime.Session{}, false, fmt.Errorf("boltstore: session %q: %w", sessionID, err)
	}
	return sess, true, nil
}
