package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/quiver-go/quiver/model"
)

// SessionStore keeps the transcripts of sessions between runs.
type SessionStore interface {
	// Load returns a copy of the session's messages (none for a new one).
	Load(ctx context.Context, sessionID string) ([]model.Message, error)
	// Save replaces the session's messages.
	Save(ctx context.Context, sessionID string, msgs []model.Message) error
}

// MemorySessionStore is the default [SessionStore], in memory.
type MemorySessionStore struct {
	mu       sync.Mutex
	sessions map[string][]model.Message
}

// NewMemorySessionStore returns an empty store.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{sessions: make(map[string][]model.Message)}
}

// Load implements [SessionStore].
func (s *MemorySessionStore) Load(_ context.Context, id string) ([]model.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return model.CloneMessages(s.sessions[id]), nil
}

// Save implements [SessionStore].
func (s *MemorySessionStore) Save(_ context.Context, id string, msgs []model.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[id] = model.CloneMessages(msgs)
	return nil
}

// suspensionStore keeps the checkpoints of suspended runs until Continue.
type suspensionStore struct {
	mu   sync.Mutex
	runs map[string]runState
}

func newSuspensionStore() *suspensionStore {
	return &suspensionStore{runs: make(map[string]runState)}
}

func (s *suspensionStore) put(st *runState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[st.RunID] = *st
}

// take removes and returns a suspended run, so two Continue calls cannot
// resume it twice.
func (s *suspensionStore) take(runID string) (*runState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.runs[runID]
	if !ok {
		return nil, fmt.Errorf("runtime: run %q is not suspended (unknown, finished or already continued)", runID)
	}
	delete(s.runs, runID)
	return &st, nil
}

// idSource generates unique ids: a random prefix per runtime and a counter.
type idSource struct {
	once   sync.Once
	prefix string
	n      atomic.Uint64
}

func (s *idSource) next(kind string) string {
	s.once.Do(func() {
		var b [4]byte
		_, _ = rand.Read(b[:])
		s.prefix = hex.EncodeToString(b[:])
	})
	return kind + "-" + s.prefix + "-" + strconv.FormatUint(s.n.Add(1), 10)
}
