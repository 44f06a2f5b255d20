package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
)

// stepStream turns the pieces a planning step's model streams into the
// run's live events: text, forming calls, search rounds, each request's
// usage. It keeps what the run's limits allow: a forming call's pieces
// stop at the bytes its arguments may have ([OutputLimits]), so a model
// writing a huge argument is not copied into the run log piece by piece.
type stepStream struct {
	events   *activityEvents
	maxBytes int

	mu    sync.Mutex
	bytes map[string]int // argument bytes seen, per forming call
}

func newStepStream(events *activityEvents, limits OutputLimits) *stepStream {
	return &stepStream{events: events, maxBytes: limits.payload().MaxBytes, bytes: map[string]int{}}
}

// chunk emits the event of c, if it has one. Finished calls have none:
// ToolCallScheduled says which calls run, once the run admitted them.
func (s *stepStream) chunk(c model.Chunk) {
	switch c.Kind {
	case model.ChunkText:
		if c.Text != "" {
			s.events.emit(TextDelta{Text: c.Text})
		}
	case model.ChunkToolCallDelta:
		if d := c.ToolCallDelta; d != nil && s.admitDelta(d) {
			s.events.emitCall(d.ID, ToolCallStreaming{Tool: d.Name, ArgumentsDelta: d.Arguments})
		}
	case model.ChunkSearch:
		if r := c.Search; r != nil {
			s.events.emit(SearchRound{Query: r.Query, Found: r.Found})
		}
	case model.ChunkUsage:
		if u := c.Usage; u != nil {
			s.events.emit(StreamUsage{Usage: *u})
		}
	}
}

// admitDelta reports whether a forming call's piece is still within the
// call's byte bound.
func (s *stepStream) admitDelta(d *model.ToolCallDelta) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := s.bytes[d.ID]
	if seen > s.maxBytes {
		return false
	}
	s.bytes[d.ID] = seen + len(d.Arguments)
	return seen+len(d.Arguments) <= s.maxBytes
}

// planningError is the error of a planning attempt that failed. Errors no
// retry can mend — no model for the agent, a search the model cannot do —
// are marked so the engine does not retry them ([RunPolicy.PlanAttempts]).
func planningError(agent string, err error) error {
	err = fmt.Errorf("planner of agent %q: %w", agent, err)
	if errors.Is(err, model.ErrNoModel) || errors.Is(err, model.ErrToolSearchUnsupported) || errors.Is(err, context.Canceled) {
		return engine.NewNonRetryableError(err)
	}
	return err
}
