package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/model"
)

// ErrNotSuspended is wrapped by the error of [Runtime.Continue] and
// [SuspensionStore.Take] for a run that has no checkpoint: unknown,
// finished, already continued by another caller, or expired
// ([ErrSuspensionExpired] says so).
var ErrNotSuspended = errors.New("runtime: run is not suspended")

// ErrSuspensionExpired is wrapped, beside [ErrNotSuspended], by the error
// of taking a checkpoint kept past its retention ([WithSuspensionRetention]):
// the store removed it and the error says when it expired.
var ErrSuspensionExpired = errors.New("runtime: the suspension expired")

// ErrSessionConflict is wrapped by the error of [SessionStore.Save] when
// the session changed since the version the caller loaded: another run of
// the session saved first. A run that loses this race ends with a
// [*SessionConflictError] and its output (see [RunHandle.Wait]).
var ErrSessionConflict = errors.New("runtime: the session changed since it was loaded")

// Session is a session's transcript as a [SessionStore] keeps it.
type Session struct {
	// Messages are the transcript, oldest first.
	Messages []model.Message
	// Version is the version of the stored transcript: 0 for a session
	// never saved, then increased by one at every save.
	Version int64
}

// SessionStore keeps the transcripts of sessions between runs. Every
// implementation passes the conformance suite in runtime/storetest.
//
// Migration: Load returned the messages alone and Save replaced them
// unconditionally. Load now returns a [Session] with its version, and
// Save takes the version loaded and fails, wrapping [ErrSessionConflict],
// when the stored one differs (compare and swap); Delete is new. A custom
// store keeps a version per session, increased on each save.
type SessionStore interface {
	// Load returns a copy of the session's transcript and its version
	// (no messages and version 0 for a session never saved).
	Load(ctx context.Context, sessionID string) (Session, error)
	// Save replaces the session's transcript if its stored version is
	// still expected, and returns the new version (expected+1). Otherwise
	// it changes nothing and fails, wrapping ErrSessionConflict.
	Save(ctx context.Context, sessionID string, msgs []model.Message, expected int64) (int64, error)
	// Delete removes the session (nothing for one never saved).
	Delete(ctx context.Context, sessionID string) error
}

// Checkpoint is a suspended run as a [SuspensionStore] keeps it: what an
// operator lists (the run, its agent, session, labels and pending items)
// and the run's state, which only the runtime reads.
type Checkpoint struct {
	RunID     string
	Agent     string
	SessionID string
	Labels    map[string]string
	// Pending are the items the run waits for, first to answer first.
	Pending []PendingItem
	// SuspendedAt is when the run suspended; ExpiresAt when its
	// checkpoint expires (zero: never).
	SuspendedAt time.Time
	ExpiresAt   time.Time
	// State is the run's state as the runtime encoded it: opaque to
	// stores, left out of List and Expire.
	State json.RawMessage
}

// SuspendedFilter selects checkpoints in [SuspensionStore.List]: every
// field set must match (Labels: each label given, with its value).
type SuspendedFilter struct {
	Agent     string
	SessionID string
	Labels    map[string]string
}

// Matches reports whether c is selected by f.
func (f SuspendedFilter) Matches(c Checkpoint) bool {
	if f.Agent != "" && c.Agent != f.Agent || f.SessionID != "" && c.SessionID != f.SessionID {
		return false
	}
	for k, v := range f.Labels {
		if got, ok := c.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// SuspensionStore keeps the checkpoints of suspended runs until they are
// continued: nothing waits in memory, so a suspended run outlives the
// process on a durable store. Every implementation passes the conformance
// suite in runtime/storetest.
type SuspensionStore interface {
	// Put stores c, replacing any checkpoint of c.RunID.
	Put(ctx context.Context, c Checkpoint) error
	// Take removes and returns the checkpoint of runID; of concurrent
	// callers (in one process or several sharing the store) exactly one
	// gets it, the others fail wrapping ErrNotSuspended. A checkpoint
	// whose ExpiresAt is not after now is removed and reported: the error
	// wraps ErrSuspensionExpired and ErrNotSuspended. A record that does
	// not decode (ErrUnknownRecordFormat) is left in place.
	Take(ctx context.Context, runID string, now time.Time) (Checkpoint, error)
	// List returns the checkpoints f selects, without their State, oldest
	// suspension first (ties by run id).
	List(ctx context.Context, f SuspendedFilter) ([]Checkpoint, error)
	// Expire removes the checkpoints whose ExpiresAt is not after now and
	// returns them, without their State, oldest first.
	Expire(ctx context.Context, now time.Time) ([]Checkpoint, error)
}

// Store is one backend holding the session and suspension stores and the
// run log ([WithStore]).
//
// Migration: RunLog is new; a custom Store returns its run log, or
// [NewMemoryRunLog]'s to keep run events in memory.
type Store interface {
	Sessions() SessionStore
	Suspensions() SuspensionStore
	RunLog() RunLog
}

// SessionConflictError is the error [RunHandle.Wait] (and [Runtime.Run])
// return for a run that completed but could not save its transcript:
// another run of the session saved first. Nothing the run produced is
// lost: Output is its whole output, returned beside this error, and
// Output.Messages are the messages it added, to save again (Load the
// session, append them, Save) or to show.
type SessionConflictError struct {
	Output *RunOutput
}

// Error implements error.
func (e *SessionConflictError) Error() string {
	return fmt.Sprintf("runtime: run %s completed, but session %q changed since the run loaded it and its transcript was not saved (%s): the run's messages are in its output", e.Output.RunID, e.Output.SessionID, e.Output.SessionNotSaved)
}

// Unwrap returns ErrSessionConflict.
func (e *SessionConflictError) Unwrap() error { return ErrSessionConflict }
