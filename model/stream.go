package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// ErrStreamClosed is returned by Recv after Close.
var ErrStreamClosed = errors.New("model: Recv on a closed stream")

// ErrStreamInterrupted is wrapped by a stream that ended before its
// response was complete: the connection dropped or the provider stopped
// sending before its final event. What was streamed before is void; no
// call of it may run.
var ErrStreamInterrupted = errors.New("model: the stream ended before the response was complete")

// ResponseStream delivers a complete response as a stream: one text chunk
// per text part, one chunk per tool call, a usage chunk, then [ChunkDone]
// with the response, then [io.EOF]. It is for clients that only complete
// whole invocations; it streams nothing before the invocation ends.
func ResponseStream(ctx context.Context, resp *Response) Streamer {
	var chunks []Chunk
	for _, m := range resp.Messages {
		for _, p := range m.Parts {
			if p.Kind == PartText && p.Text != "" {
				chunks = append(chunks, Chunk{Kind: ChunkText, Text: p.Text})
			}
		}
	}
	for _, call := range resp.ToolCalls {
		call.Payload = slices.Clone(call.Payload)
		chunks = append(chunks, Chunk{Kind: ChunkToolCall, ToolCall: &call})
	}
	if resp.Usage != (Usage{}) {
		u := resp.Usage
		chunks = append(chunks, Chunk{Kind: ChunkUsage, Usage: &u})
	}
	chunks = append(chunks, Chunk{Kind: ChunkDone, Response: resp})
	return &responseStream{ctx: ctx, chunks: chunks}
}

type responseStream struct {
	ctx    context.Context
	mu     sync.Mutex
	chunks []Chunk
	next   int
	closed bool
}

// Recv returns the next chunk, io.EOF after ChunkDone, or an error once
// the stream is closed or its context canceled.
func (s *responseStream) Recv() (Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Chunk{}, ErrStreamClosed
	}
	if s.next >= len(s.chunks) {
		return Chunk{}, io.EOF
	}
	if err := s.ctx.Err(); err != nil {
		return Chunk{}, fmt.Errorf("model: stream: %w", err)
	}
	c := s.chunks[s.next]
	s.next++
	return c, nil
}

// Close releases the stream; it may be called more than once.
func (s *responseStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// Collect reads s to its end and returns the final response, handing every
// chunk before [ChunkDone] to each (nil: none) as it arrives. It closes s.
// An error of each stops the stream and is returned; a stream that ends
// before ChunkDone fails wrapping [ErrStreamInterrupted]. It is how a
// caller that wants the whole response, and the pieces as they come, reads
// a stream.
func Collect(s Streamer, each func(Chunk) error) (resp *Response, err error) {
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil && resp == nil {
			err = cerr
		}
	}()
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: it ended without its final chunk", ErrStreamInterrupted)
		}
		if err != nil {
			return nil, err
		}
		if c.Kind == ChunkDone {
			if c.Response == nil {
				return nil, errors.New("model: a stream's final chunk carries no response")
			}
			return c.Response, nil
		}
		if each != nil {
			if err := each(c); err != nil {
				return nil, err
			}
		}
	}
}

// Produce runs one invocation for [NewStream]: it sends chunks with emit,
// in order, and returns the whole response, which the stream delivers as
// [ChunkDone]. emit blocks until the chunk is received, and fails once the
// stream is closed or ctx is done; Produce then returns that error.
type Produce func(ctx context.Context, emit func(Chunk) error) (*Response, error)

// NewStream returns a stream whose chunks produce sends from a goroutine of
// its own: the shape of an adapter whose invocation spans several provider
// requests (search rounds answered between them). Close cancels produce's
// context and waits for it to return. produce must not send [ChunkDone]:
// its returned response is the final chunk.
func NewStream(ctx context.Context, produce Produce) Streamer {
	ctx, cancel := context.WithCancel(ctx)
	s := &producedStream{cancel: cancel, chunks: make(chan Chunk), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		resp, err := produce(ctx, func(c Chunk) error {
			if c.Kind == ChunkDone {
				return errors.New("model: a stream's producer sent ChunkDone: return the response instead")
			}
			select {
			case s.chunks <- c:
				return nil
			case <-ctx.Done():
				return fmt.Errorf("model: stream: %w", context.Cause(ctx))
			}
		})
		if err == nil && resp == nil {
			err = errors.New("model: a stream's producer returned no response and no error")
		}
		s.resp, s.err = resp, err
	}()
	return s
}

type producedStream struct {
	cancel context.CancelFunc
	chunks chan Chunk
	done   chan struct{}
	// resp and err are written by the producer before done is closed.
	resp *Response
	err  error

	mu       sync.Mutex
	closed   bool
	finished bool
}

// Recv implements [Streamer].
func (s *producedStream) Recv() (Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Chunk{}, ErrStreamClosed
	}
	if s.finished {
		return Chunk{}, io.EOF
	}
	select {
	case c := <-s.chunks:
		return c, nil
	case <-s.done:
	}
	s.finished = true
	if s.err != nil {
		return Chunk{}, s.err
	}
	return Chunk{Kind: ChunkDone, Response: s.resp}, nil
}

// Close implements [Streamer]: it cancels the producer and waits for it.
func (s *producedStream) Close() error {
	s.cancel()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
