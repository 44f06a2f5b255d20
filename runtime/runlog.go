package runtime

import (
	"context"
	"errors"
	"time"
)

// Errors of a run log's Append and Run.
var (
	// ErrUnknownRun is wrapped by [RunLog.Run] for a run with no event.
	ErrUnknownRun = errors.New("runtime: the run log has no such run")
	// ErrEventGap is wrapped by [RunLog.Append] when an event skips a
	// sequence number: events are appended in order, without gaps.
	ErrEventGap = errors.New("runtime: event sequence gap")
	// ErrEventConflict is wrapped by [RunLog.Append] when a sequence
	// number already holds another event: two writers for one run.
	ErrEventConflict = errors.New("runtime: another event holds this sequence number")
	// ErrRunEnded is wrapped by [RunLog.Append] for a new event of a run
	// that ended (completed, failed, cancelled or interrupted).
	ErrRunEnded = errors.New("runtime: the run ended in the run log")
)

// RunInfo is a run as a run log knows it, from its events.
type RunInfo struct {
	RunID     string
	SessionID string
	Agent     string
	// ParentRunID is the run that started this one as a child.
	ParentRunID string
	// Status follows the run's events ([StatusAfter]).
	Status RunStatus
	// Owner is the runtime instance that appended the run's latest
	// events: while the run is running, the one running it.
	Owner string
	// LastSeq is the sequence number of the run's latest event.
	LastSeq int64
	// StartedAt and UpdatedAt are the times of its first and latest
	// events.
	StartedAt time.Time
	UpdatedAt time.Time
}

// RunFilter selects runs in [RunLog.Runs]: every field set must match.
type RunFilter struct {
	SessionID string
	Agent     string
	Status    RunStatus
	// Limit bounds how many runs are returned (0: all).
	Limit int
}

// Matches reports whether r is selected by f (Limit aside).
func (f RunFilter) Matches(r RunInfo) bool {
	return (f.SessionID == "" || r.SessionID == f.SessionID) &&
		(f.Agent == "" || r.Agent == f.Agent) &&
		(f.Status == "" || r.Status == f.Status)
}

// RunLog is the durable, cross-process record of every event of every run
// ([WithRunLog], [WithStore]): the runtime appends each event before the
// run goes past what the event reports, and followers — UIs, operators,
// other processes — read it from a cursor ([FollowRunLog]) without ever
// holding a run back. Every implementation passes the conformance suite
// in runtime/storetest.
type RunLog interface {
	// Append records events of one run, in sequence order, for owner
	// (the runtime instance running it), all or none. An event whose
	// sequence number is stored already is skipped when its record
	// ([MarshalEvent]) is the one stored — a retried step records nothing
	// twice — and fails the call, wrapping ErrEventConflict, when it
	// differs (and also wrapping ErrRunEnded when the run has ended: a
	// writer that lost its lease). The first new event must follow the run's last (1 for a
	// new run) and the others follow it (ErrEventGap); a new event of a
	// run whose status has ended fails wrapping ErrRunEnded. The run's
	// info follows the events appended: status ([StatusAfter]), owner,
	// last sequence number, times; its session, agent and parent come
	// from its first event.
	Append(ctx context.Context, owner string, events []EventRecord) error
	// Read returns up to limit events of the run after sequence number
	// after, in order (limit 0: all). A run with no event has none.
	Read(ctx context.Context, runID string, after int64, limit int) ([]EventRecord, error)
	// Wait blocks until the run has an event after sequence number
	// after, timeout passes or ctx is done, and reports whether it has
	// (ctx's error when it ended the wait). It works for a run with no
	// event yet; a timeout of 0 or less checks once.
	Wait(ctx context.Context, runID string, after int64, timeout time.Duration) (bool, error)
	// Run returns the run's info, wrapping ErrUnknownRun for a run with
	// no event.
	Run(ctx context.Context, runID string) (RunInfo, error)
	// Runs returns the runs f selects, the most recently updated first
	// (ties by run id).
	Runs(ctx context.Context, f RunFilter) ([]RunInfo, error)
	// Renew holds owner's lease until until (replacing any earlier one,
	// even a later one): its running runs are not stale before then. An
	// empty owner is refused, as it is by Append.
	Renew(ctx context.Context, owner string, until time.Time) error
	// Stale returns the running runs whose owner holds no lease after
	// now, the least recently updated first.
	Stale(ctx context.Context, now time.Time) ([]RunInfo, error)
	// Expire removes the runs not running (ended or suspended) whose
	// latest event is before before, with their events, and returns their
	// info, the least recently updated first.
	Expire(ctx context.Context, before time.Time) ([]RunInfo, error)
}
