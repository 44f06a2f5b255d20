package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
)

// sessionKey is the hash of a session: {format, version, record, nonce}.
func (s *Store) sessionKey(id string) string { return s.prefix + "session:" + id }

// Load implements [runtime.SessionStore].
func (s *Store) Load(ctx context.Context, sessionID string) (runtime.Session, error) {
	if err := s.conn.Usable(ctx); err != nil {
		return runtime.Session{}, err
	}
	what := fmt.Sprintf("session %q", sessionID)
	got, err := s.conn.C.HMGet(ctx, s.sessionKey(sessionID), "format", "version", "record").Result()
	if err != nil {
		return runtime.Session{}, s.conn.Failed(ctx, "load "+what, err)
	}
	if got[1] == nil && got[2] == nil {
		return runtime.Session{}, nil
	}
	if f := redisconn.Str(got[0]); f != recordFormat {
		return runtime.Session{}, unknownFormat(what, f)
	}
	sess, err := runtime.UnmarshalSession([]byte(redisconn.Str(got[2])))
	if err != nil {
		return runtime.Session{}, fmt.Errorf("redisstore: load %s: %w", what, err)
	}
	if v := redisconn.Str(got[1]); v != strconv.FormatInt(sess.Version, 10) {
		return runtime.Session{}, fmt.Errorf("redisstore: load %s: the hash says version %q, its record version %d: the key was written by something else than this package; delete it (the session is lost) or restore it", what, v, sess.Version)
	}
	return sess, nil
}

// Save implements [runtime.SessionStore]: one script compares the stored
// version with expected and writes the new record only when they agree.
func (s *Store) Save(ctx context.Context, sessionID string, msgs []model.Message, expected int64) (int64, error) {
	next := expected + 1
	b, err := runtime.MarshalSession(sessionID, runtime.Session{Messages: msgs, Version: next})
	if err != nil {
		return 0, err
	}
	what := fmt.Sprintf("session %q", sessionID)
	reply, err := s.conn.Eval(ctx, "save "+what, scriptSave, false, []string{s.sessionKey(sessionID)},
		strconv.FormatInt(expected, 10), strconv.FormatInt(next, 10), b, recordFormat, redisconn.Nonce())
	if err != nil {
		return 0, err
	}
	switch redisconn.Str(reply[0]) {
	case "ok":
		return next, nil
	case "conflict":
		return 0, fmt.Errorf("%w: session %q is at version %s, the run loaded version %d", runtime.ErrSessionConflict, sessionID, redisconn.Str(reply[1]), expected)
	case "format":
		return 0, unknownFormat(what, redisconn.Str(reply[1]))
	}
	return 0, fmt.Errorf("redisstore: save %s: unexpected reply %v", what, reply)
}

// Delete implements [runtime.SessionStore].
func (s *Store) Delete(ctx context.Context, sessionID string) error {
	if err := s.conn.Usable(ctx); err != nil {
		return err
	}
	if err := s.conn.C.Del(ctx, s.sessionKey(sessionID)).Err(); err != nil {
		return s.conn.Failed(ctx, fmt.Sprintf("delete session %q", sessionID), err)
	}
	return nil
}
