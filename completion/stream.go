package completion

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
)

// ErrNotComplete is returned by [Streamer.Value] before the stream has
// ended cleanly, and wrapped by it after a stream that failed or was
// closed before its end: there is no value to give.
var ErrNotComplete = errors.New("completion: the stream has not ended cleanly: read it with Recv until io.EOF")

// ChunkDelta is the [Chunk.Type] of a piece of the answer's text.
const ChunkDelta = "completion_delta"

// Chunk is a piece of a streamed completion. A [ChunkDelta] chunk's Delta
// is the next piece of the answer's text, for preview only: it is not
// validated, and nothing decodes it; the value comes from
// [Streamer.Value] once the stream has ended cleanly.
type Chunk struct {
	// Type is [ChunkDelta]; consumers ignore types they do not know.
	Type string
	// Delta is the next piece of the answer's text.
	Delta string
}

// Streamer delivers a streamed completion: the answer's text as
// [ChunkDelta] chunks while it forms, then, at a clean end, the validated
// value. Recv and Close may be called from different goroutines; Value
// never blocks.
type Streamer[T any] struct {
	c   *Completion[T]
	src model.Streamer

	// recvMu serializes Recv.
	recvMu sync.Mutex

	mu     sync.Mutex
	ended  bool  // the stream ended: value or err holds its outcome
	value  T     // the validated value, after a clean end
	err    error // the end's error: a contract error or the stream's
	closed bool
}

// Recv returns the next [ChunkDelta] chunk. At a clean end, once the
// answer is validated and decoded, it returns [io.EOF] (then
// [Streamer.Value] has the value). An answer that breaks the contract
// returns its *planner.OutputContractError, after the last delta; a
// stream that ended before the provider's response was complete returns an
// error wrapping model.ErrStreamInterrupted; other stream errors are
// returned wrapped. Every later Recv returns the same outcome.
func (s *Streamer[T]) Recv() (Chunk, error) {
	s.recvMu.Lock()
	defer s.recvMu.Unlock()
	for {
		s.mu.Lock()
		ended, err, closed := s.ended, s.err, s.closed
		s.mu.Unlock()
		if ended {
			if err != nil {
				return Chunk{}, err
			}
			return Chunk{}, io.EOF
		}
		if closed {
			return Chunk{}, fmt.Errorf("completion %q: %w", s.c.def.Name, model.ErrStreamClosed)
		}
		mc, err := s.src.Recv()
		switch {
		case errors.Is(err, io.EOF):
			s.end(fmt.Errorf("completion %q: %w: it ended without its final chunk", s.c.def.Name, model.ErrStreamInterrupted))
		case err != nil:
			if s.isClosed() && !errors.Is(err, model.ErrStreamInterrupted) {
				return Chunk{}, fmt.Errorf("completion %q: %w", s.c.def.Name, model.ErrStreamClosed)
			}
			s.end(fmt.Errorf("completion %q: %w", s.c.def.Name, err))
		case mc.Kind == model.ChunkDone:
			if mc.Response == nil {
				s.end(fmt.Errorf("completion %q: the model stream's final chunk carries no response", s.c.def.Name))
				continue
			}
			v, err := s.c.finish(mc.Response)
			s.mu.Lock()
			s.ended, s.value, s.err = true, v, err
			s.mu.Unlock()
		case mc.Kind == model.ChunkText && mc.Text != "":
			return Chunk{Type: ChunkDelta, Delta: mc.Text}, nil
		}
	}
}

// Value returns the validated value once Recv has returned [io.EOF]. Before
// the stream's end it returns [ErrNotComplete]; after an answer that broke
// the contract, its *planner.OutputContractError; after a stream that
// failed or was closed before its end, an error wrapping ErrNotComplete
// and the stream's error.
func (s *Streamer[T]) Value() (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	switch {
	case !s.ended && s.closed:
		return zero, fmt.Errorf("%w: the stream was closed before its end", ErrNotComplete)
	case !s.ended:
		return zero, ErrNotComplete
	case s.err == nil:
		return s.value, nil
	}
	var ce *planner.OutputContractError
	if errors.As(s.err, &ce) {
		return zero, s.err
	}
	return zero, fmt.Errorf("%w: %w", ErrNotComplete, s.err)
}

// Close releases the stream, cancelling the model request if it is still
// running. It may be called at any time, more than once; a value already
// validated stays available.
func (s *Streamer[T]) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return s.src.Close()
}

// end records a failed end.
func (s *Streamer[T]) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended, s.err = true, err
}

// isClosed reports whether Close has been called.
func (s *Streamer[T]) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
