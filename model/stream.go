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

// ResponseStream delivers a complete response as a stream: one text chunk
// per text part, one chunk per tool call, then [ChunkDone] with the response,
// then [io.EOF]. Adapters that complete an invocation before answering (their
// search rounds must finish first) stream this way.
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
