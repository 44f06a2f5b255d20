package compat

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/quiver-go/quiver/model"
)

// ErrBrokenStream is wrapped when the server's chunks do not fit together
// (an id that changes mid-stream, a choice or tool-call index out of range).
var ErrBrokenStream = errors.New("compat: broken stream")

// stream delivers one streamed chat completion as model chunks: a text
// chunk per content delta, a tool-call chunk per finished call, then
// ChunkDone with the whole response, then io.EOF.
//
// Wire shape: the same request with "stream": true (added by the SDK's
// ChatCompletionService.NewStreaming) and "stream_options":
// {"include_usage": true}, so the last chunk carries the usage
// (openai-go/v3 ChatCompletionStreamOptionsParam.IncludeUsage; listed among
// Ollama's supported fields too). The server answers with server-sent
// events, each a chat.completion.chunk (openai-go/v3 ChatCompletionChunk),
// accumulated by the SDK's ChatCompletionAccumulator.
type stream struct {
	ctx     context.Context
	sse     *ssestream.Stream[openai.ChatCompletionChunk]
	acc     openai.ChatCompletionAccumulator
	sent    map[string]bool // ids of the tool calls already delivered
	pending []model.Chunk
	done    bool
	// ignored are the request's cache checkpoints, which the final
	// response lists (ignoredCheckpoints).
	ignored []model.CacheCheckpoint
}

// newStream starts the streaming request. An error status of the server
// surfaces from the first Recv, as the SDK reports it there.
func newStream(ctx context.Context, svc openai.ChatCompletionService, params openai.ChatCompletionNewParams, ignored []model.CacheCheckpoint) (*stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compat: %w", err)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	return &stream{ctx: ctx, sse: svc.NewStreaming(ctx, params), sent: map[string]bool{}, ignored: ignored}, nil
}

// Recv returns the next chunk; after ChunkDone it returns io.EOF.
func (s *stream) Recv() (model.Chunk, error) {
	for len(s.pending) == 0 {
		if s.done {
			return model.Chunk{}, io.EOF
		}
		if err := s.ctx.Err(); err != nil {
			return model.Chunk{}, fmt.Errorf("compat: %w", err)
		}
		if !s.sse.Next() {
			if err := s.sse.Err(); err != nil {
				return model.Chunk{}, wrapSDKError(err)
			}
			if err := s.finish(); err != nil {
				return model.Chunk{}, err
			}
			break
		}
		if err := s.add(s.sse.Current()); err != nil {
			return model.Chunk{}, err
		}
	}
	c := s.pending[0]
	s.pending = s.pending[1:]
	return c, nil
}

// add accumulates one chunk and queues what it completes.
func (s *stream) add(chunk openai.ChatCompletionChunk) error {
	if !s.acc.AddChunk(chunk) {
		return fmt.Errorf("%w: chunk %q does not continue the chat completion of the chunks before it", ErrBrokenStream, chunk.ID)
	}
	for _, ch := range chunk.Choices {
		if ch.Index == 0 && ch.Delta.Content != "" {
			s.pending = append(s.pending, model.Chunk{Kind: model.ChunkText, Text: ch.Delta.Content})
		}
	}
	if tc, ok := s.acc.JustFinishedToolCallForChoice(0); ok {
		s.queueCall(model.ToolCall{ID: tc.ID, Name: tc.Name, Payload: arguments(tc.Arguments)})
	}
	return nil
}

// finish maps the accumulated completion and queues the calls not yet
// delivered, then ChunkDone.
func (s *stream) finish() error {
	s.done = true
	resp, err := toResponse(&s.acc.ChatCompletion)
	if err != nil {
		return err
	}
	resp.IgnoredCheckpoints = s.ignored
	for _, tc := range resp.ToolCalls {
		s.queueCall(tc)
	}
	s.pending = append(s.pending, model.Chunk{Kind: model.ChunkDone, Response: resp})
	return nil
}

// queueCall queues a tool-call chunk once per call id.
func (s *stream) queueCall(tc model.ToolCall) {
	if tc.ID == "" || s.sent[tc.ID] {
		return
	}
	s.sent[tc.ID] = true
	s.pending = append(s.pending, model.Chunk{Kind: model.ChunkToolCall, ToolCall: &tc})
}

// Close releases the connection.
func (s *stream) Close() error {
	if err := s.sse.Close(); err != nil {
		return fmt.Errorf("compat: closing the stream: %w", err)
	}
	return nil
}
