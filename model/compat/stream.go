package compat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/quiver-go/quiver/model"
)

// ErrBrokenStream is wrapped when the server's chunks do not fit together
// (an id that changes mid-stream, a choice or tool-call index out of range,
// a call continued after the next one started).
var ErrBrokenStream = errors.New("compat: broken stream")

// stream delivers one streamed chat completion as model chunks: a text
// chunk per content delta, a tool-call delta per argument fragment, a
// tool-call chunk per finished call, a usage chunk, then ChunkDone with
// the whole response, then io.EOF.
//
// Wire shape: the same request with "stream": true (added by the SDK's
// ChatCompletionService.NewStreaming) and "stream_options":
// {"include_usage": true}, so the last chunk carries the usage
// (openai-go/v3 ChatCompletionStreamOptionsParam.IncludeUsage; listed among
// Ollama's supported fields too). The server answers with server-sent
// events, each a chat.completion.chunk (openai-go/v3 ChatCompletionChunk),
// accumulated by the SDK's ChatCompletionAccumulator into the final
// response, then "data: [DONE]".
//
// A call's fragments carry its index; only the first carries its id and
// name. A call is delivered (ChunkToolCall) once the next call starts or
// finish_reason arrives, never earlier: the SDK's
// JustFinishedToolCallForChoice reports a call finished on any chunk
// without tool calls, which would deliver the half-written arguments of a
// stream cut off mid-call. A stream that ends before finish_reason fails
// with model.ErrStreamInterrupted and delivers no unfinished call.
type stream struct {
	ctx    context.Context
	cancel context.CancelFunc
	sse    *ssestream.Stream[openai.ChatCompletionChunk]
	acc    openai.ChatCompletionAccumulator
	// ignored are the request's cache checkpoints, which the final
	// response lists (ignoredCheckpoints).
	ignored []model.CacheCheckpoint

	// mu guards what Recv and Close share; Close cancels first, so a
	// Recv blocked on the connection returns and lets it in.
	mu      sync.Mutex
	closed  bool
	calls   calls
	pending []model.Chunk
	done    bool
}

// newStream starts the streaming request. An error status of the server
// surfaces from the first Recv, as the SDK reports it there.
func newStream(ctx context.Context, svc openai.ChatCompletionService, params openai.ChatCompletionNewParams, ignored []model.CacheCheckpoint) (*stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compat: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	return &stream{ctx: ctx, cancel: cancel, sse: svc.NewStreaming(ctx, params), ignored: ignored}, nil
}

// Recv returns the next chunk; after ChunkDone it returns io.EOF.
func (s *stream) Recv() (model.Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pending) == 0 {
		switch {
		case s.closed:
			return model.Chunk{}, model.ErrStreamClosed
		case s.done:
			return model.Chunk{}, io.EOF
		}
		if err := s.ctx.Err(); err != nil {
			return model.Chunk{}, s.fail(fmt.Errorf("compat: %w", err))
		}
		if !s.sse.Next() {
			if err := s.ended(s.sse.Err()); err != nil {
				return model.Chunk{}, s.fail(err)
			}
			break
		}
		if err := s.add(s.sse.Current()); err != nil {
			return model.Chunk{}, s.fail(err)
		}
	}
	c := s.pending[0]
	s.pending = s.pending[1:]
	return c, nil
}

// fail ends the stream with err: later Recv calls return io.EOF, and the
// chunks queued with err (an unfinished call's) are dropped.
func (s *stream) fail(err error) error {
	s.done = true
	s.pending = nil
	return err
}

// add accumulates one chunk and queues what it completes.
func (s *stream) add(chunk openai.ChatCompletionChunk) error {
	if !s.acc.AddChunk(chunk) {
		return fmt.Errorf("%w: chunk %q does not continue the chat completion of the chunks before it", ErrBrokenStream, chunk.ID)
	}
	// The request never sets "n": choice 0 is the answer.
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.Delta.Content != "" {
			s.pending = append(s.pending, model.Chunk{Kind: model.ChunkText, Text: ch.Delta.Content})
		}
		for _, tc := range ch.Delta.ToolCalls {
			chunks, err := s.calls.fragment(tc)
			if err != nil {
				return err
			}
			s.pending = append(s.pending, chunks...)
		}
		if ch.FinishReason != "" {
			s.pending = append(s.pending, s.calls.finish()...)
		}
	}
	return nil
}

// ended handles the end of the server's events: err is the SDK's reason,
// nil after "data: [DONE]" or a clean end of the body. A stream that ends
// before finish_reason is interrupted; a finished one queues its usage and
// ChunkDone.
func (s *stream) ended(err error) error {
	var apiErr *openai.Error
	switch {
	case errors.As(err, &apiErr):
		// An error status, reported before any chunk.
		return wrapSDKError(err)
	case s.ctx.Err() != nil:
		return fmt.Errorf("compat: %w", context.Cause(s.ctx))
	case err != nil:
		return fmt.Errorf("compat: %w: %w", model.ErrStreamInterrupted, wrapSDKError(err))
	case !s.calls.finished:
		return fmt.Errorf("compat: %w: the server's events ended without a finish_reason", model.ErrStreamInterrupted)
	}
	s.done = true
	resp, err := toResponse(&s.acc.ChatCompletion)
	if err != nil {
		return err
	}
	resp.IgnoredCheckpoints = s.ignored
	// A call announced after finish_reason (servers that send it early)
	// is finished too: the response is complete.
	s.pending = append(s.pending, s.calls.finish()...)
	u := resp.Usage
	s.pending = append(s.pending,
		model.Chunk{Kind: model.ChunkUsage, Usage: &u},
		model.Chunk{Kind: model.ChunkDone, Response: resp})
	return nil
}

// Close cancels the request if it is still running and releases the
// connection; it may be called more than once, and while Recv waits.
func (s *stream) Close() error {
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.sse.Close(); err != nil {
		return fmt.Errorf("compat: closing the stream: %w", err)
	}
	return nil
}
