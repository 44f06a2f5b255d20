package runtime

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/quiver-go/quiver/model"
)

// MemoryStore is the default [Store]: sessions, checkpoints and run events
// in process memory, lost with the process. Records go through the same encoding as
// on a durable store ([MarshalSession], [MarshalCheckpoint]), so their
// size bound and copies behave the same.
type MemoryStore struct {
	mu          sync.Mutex
	sessions    map[string]memorySession
	checkpoints map[string][]byte
	runLog      RunLog
}

// memorySession is a stored session: its record and, beside it, its
// version, so that a save compares versions without decoding the record.
type memorySession struct {
	version int64
	record  []byte
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{sessions: map[string]memorySession{}, checkpoints: map[string][]byte{}, runLog: NewMemoryRunLog()}
}

// Sessions implements [Store].
func (s *MemoryStore) Sessions() SessionStore { return s }

// Suspensions implements [Store].
func (s *MemoryStore) Suspensions() SuspensionStore { return memorySuspensions{s} }

// RunLog implements [Store].
func (s *MemoryStore) RunLog() RunLog { return s.runLog }

// Load implements [SessionStore].
func (s *MemoryStore) Load(_ context.Context, id string) (Session, error) {
	s.mu.Lock()
	stored, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		return Session{}, nil
	}
	return UnmarshalSession(stored.record)
}

// Save implements [SessionStore].
func (s *MemoryStore) Save(_ context.Context, id string, msgs []model.Message, expected int64) (int64, error) {
	b, err := MarshalSession(id, Session{Messages: msgs, Version: expected + 1})
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if stored := s.sessions[id].version; stored != expected {
		return 0, sessionConflict(id, expected, stored)
	}
	s.sessions[id] = memorySession{version: expected + 1, record: b}
	return expected + 1, nil
}

// Delete implements [SessionStore].
func (s *MemoryStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, id)
	return nil
}

// sessionConflict is the error of a save whose expected version is not
// the stored one.
func sessionConflict(id string, expected, stored int64) error {
	return fmt.Errorf("%w: session %q is at version %d, the run loaded version %d", ErrSessionConflict, id, stored, expected)
}

// memorySuspensions is the MemoryStore's SuspensionStore.
type memorySuspensions struct{ s *MemoryStore }

// Put implements [SuspensionStore].
func (m memorySuspensions) Put(_ context.Context, c Checkpoint) error {
	b, err := MarshalCheckpoint(c)
	if err != nil {
		return err
	}
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	m.s.checkpoints[c.RunID] = b
	return nil
}

// Take implements [SuspensionStore].
func (m memorySuspensions) Take(_ context.Context, runID string, now time.Time) (Checkpoint, error) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	b, ok := m.s.checkpoints[runID]
	if !ok {
		return Checkpoint{}, NotSuspended(runID)
	}
	// A record this release cannot read stays for the one that can.
	c, err := UnmarshalCheckpoint(b)
	if err != nil {
		return Checkpoint{}, err
	}
	delete(m.s.checkpoints, runID)
	if Expired(c, now) {
		return Checkpoint{}, SuspensionExpired(c)
	}
	return c, nil
}

// List implements [SuspensionStore].
func (m memorySuspensions) List(_ context.Context, f SuspendedFilter) ([]Checkpoint, error) {
	all, err := m.decodeAll()
	if err != nil {
		return nil, err
	}
	var out []Checkpoint
	for _, c := range all {
		if f.Matches(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Expire implements [SuspensionStore].
func (m memorySuspensions) Expire(_ context.Context, now time.Time) ([]Checkpoint, error) {
	all, err := m.decodeAll()
	if err != nil {
		return nil, err
	}
	var out []Checkpoint
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	for _, c := range all {
		if Expired(c, now) {
			if _, still := m.s.checkpoints[c.RunID]; still {
				delete(m.s.checkpoints, c.RunID)
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// decodeAll returns every checkpoint without its state, in List order.
func (m memorySuspensions) decodeAll() ([]Checkpoint, error) {
	m.s.mu.Lock()
	raw := make([][]byte, 0, len(m.s.checkpoints))
	for _, b := range m.s.checkpoints {
		raw = append(raw, b)
	}
	m.s.mu.Unlock()
	out := make([]Checkpoint, 0, len(raw))
	for _, b := range raw {
		c, err := UnmarshalCheckpoint(b)
		if err != nil {
			return nil, err
		}
		c.State = nil
		out = append(out, c)
	}
	SortCheckpoints(out)
	return out, nil
}

// SortCheckpoints sorts checkpoints in List order: oldest suspension
// first, ties by run id.
func SortCheckpoints(cs []Checkpoint) {
	slices.SortFunc(cs, func(a, b Checkpoint) int {
		return cmp.Or(a.SuspendedAt.Compare(b.SuspendedAt), cmp.Compare(a.RunID, b.RunID))
	})
}

// Expired reports whether c's retention has passed at now.
func Expired(c Checkpoint, now time.Time) bool {
	return !c.ExpiresAt.IsZero() && !c.ExpiresAt.After(now)
}

// NotSuspended is the error of taking runID's checkpoint when there is
// none (for stores: wraps ErrNotSuspended).
func NotSuspended(runID string) error {
	return fmt.Errorf("%w: run %q (unknown, finished or already continued)", ErrNotSuspended, runID)
}

// SuspensionExpired is the error of taking c after its retention (for
// stores: wraps ErrSuspensionExpired and ErrNotSuspended).
func SuspensionExpired(c Checkpoint) error {
	return fmt.Errorf("%w: run %q suspended at %s expired at %s (%w): its pending items can no longer be answered",
		ErrNotSuspended, c.RunID, c.SuspendedAt.UTC().Format(time.RFC3339), c.ExpiresAt.UTC().Format(time.RFC3339), ErrSuspensionExpired)
}

// Compile-time checks of the interfaces MemoryStore implements.
var (
	_ Store           = (*MemoryStore)(nil)
	_ SessionStore    = (*MemoryStore)(nil)
	_ SuspensionStore = memorySuspensions{}
)
