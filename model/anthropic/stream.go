package anthropic

import (
	"context"
	"errors"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/model"
)

// Stream runs the invocation like Complete, over the Messages API's
// server-sent events (on Bedrock, InvokeModelWithResponseStream, which the
// SDK's middleware turns into the same events), delivering output as it
// arrives:
//
//   - a model.ChunkText per text delta;
//   - for each ordinary tool_use block, a model.ChunkToolCallDelta
//     announcing it (empty Arguments) when it starts, one per
//     input_json_delta, and a model.ChunkToolCall when the block stops —
//     the call Complete returns. The deltas' Arguments joined are the
//     call's input; a block that streamed none gets one delta with its
//     whole input before its call;
//   - a model.ChunkSearch for each search: a hosted search when its
//     tool_search_tool_result block stops (Found: the tools it referenced
//     that the request defines), a client-side search (SearchClient) when
//     the adapter has answered it, between two requests. Search calls are
//     never deltas or calls;
//   - a model.ChunkUsage at the end of each request's message, its usage
//     as Complete maps it: the usages add up to the final response's.
//
// Each request's message is accumulated from its events (the SDK's
// Message.Accumulate) and mapped by the code Complete uses, so the final
// response, delivered as model.ChunkDone, is the one Complete returns for
// the same answers. A stream that ends before message_stop fails with an
// error wrapping model.ErrStreamInterrupted, without a model.ChunkToolCall
// for the unfinished block; an error event fails with an *APIError. Close,
// or canceling ctx, cancels the request. Errors found before anything is
// sent (a request Complete would refuse) are returned by Stream itself.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	inv, err := c.prepare(req)
	if err != nil {
		return nil, err
	}
	return model.NewStream(ctx, func(ctx context.Context, emit func(model.Chunk) error) (*model.Response, error) {
		resp, err := inv.run(ctx, inv.streamRound(emit), emit)
		if err != nil {
			return nil, err
		}
		return inv.finish(resp), nil
	}), nil
}

// streamRound returns the sender of a streamed invocation's requests: each
// request's events are emitted as chunks while its message accumulates.
func (inv *invocation) streamRound(emit func(model.Chunk) error) sendRound {
	return func(ctx context.Context, params sdk.MessageNewParams) (*sdk.Message, error) {
		s := inv.client.api.Messages.NewStreaming(ctx, params)
		defer s.Close()
		if err := s.Err(); err != nil {
			// The request failed before its stream began: an error status,
			// or no connection. Complete reports it alike.
			return nil, wrapSDKError(err)
		}
		r := &roundStream{emit: emit, tools: inv.tools, clientTool: inv.clientTool()}
		for s.Next() {
			if err := r.handle(s.Current()); err != nil {
				return nil, err
			}
			if r.stopped {
				return &r.msg, nil
			}
		}
		return nil, streamEndError(ctx, s.Err())
	}
}

// streamEndError is the error of a stream that began and ended before
// message_stop: an error event (*APIError), a canceled ctx, or a
// connection that ended (model.ErrStreamInterrupted).
func streamEndError(ctx context.Context, err error) error {
	var apiErr *sdk.Error
	switch {
	case errors.As(err, &apiErr):
		return wrapSDKError(err)
	case ctx.Err() != nil:
		return fmt.Errorf("anthropic: messages stream: %w: %w", model.ErrStreamInterrupted, context.Cause(ctx))
	case err != nil:
		return fmt.Errorf("anthropic: messages stream: %w: it failed before message_stop: %w", model.ErrStreamInterrupted, err)
	}
	return fmt.Errorf("anthropic: messages stream: %w: the connection closed before message_stop", model.ErrStreamInterrupted)
}

// roundStream follows the events of one streamed request.
type roundStream struct {
	emit       func(model.Chunk) error
	tools      *toolSet
	clientTool string
	// msg is the message accumulated so far.
	msg sdk.Message
	// streamed marks the tool_use blocks, by index, whose input has
	// streamed in at least one non-empty delta.
	streamed map[int64]bool
	// stopped is set by message_stop: msg is complete.
	stopped bool
}

// handle accumulates ev and emits what it completes.
func (r *roundStream) handle(ev sdk.MessageStreamEventUnion) error {
	if err := r.msg.Accumulate(ev); err != nil {
		return fmt.Errorf("anthropic: messages stream: malformed %s event: %w", ev.Type, err)
	}
	switch ev.Type {
	case "message_start":
		r.streamed = map[int64]bool{}
	case "content_block_start":
		if b := r.msg.Content[ev.Index]; r.isCall(b) {
			return r.emit(model.Chunk{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: b.ID, Name: b.Name}})
		}
	case "content_block_delta":
		return r.delta(ev)
	case "content_block_stop":
		return r.stop(ev.Index)
	case "message_stop":
		r.stopped = true
		u := usageOf(r.msg.Usage)
		return r.emit(model.Chunk{Kind: model.ChunkUsage, Usage: &u})
	}
	return nil
}

// isCall reports whether b is an ordinary tool_use block (not a call of
// the client-side search tool).
func (r *roundStream) isCall(b sdk.ContentBlockUnion) bool {
	return b.Type == "tool_use" && (r.clientTool == "" || b.Name != r.clientTool)
}

// delta emits a text piece, or a piece of an ordinary call's input.
func (r *roundStream) delta(ev sdk.MessageStreamEventUnion) error {
	b := r.msg.Content[ev.Index]
	switch {
	case ev.Delta.Type == "text_delta" && ev.Delta.Text != "":
		return r.emit(model.Chunk{Kind: model.ChunkText, Text: ev.Delta.Text})
	case ev.Delta.Type == "input_json_delta" && ev.Delta.PartialJSON != "" && r.isCall(b):
		r.streamed[ev.Index] = true
		return r.emit(model.Chunk{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: b.ID, Name: b.Name, Arguments: ev.Delta.PartialJSON}})
	}
	return nil
}

// stop emits what a finished block completes: an ordinary call, or a
// hosted search.
func (r *roundStream) stop(i int64) error {
	b := r.msg.Content[i]
	switch {
	case r.isCall(b):
		input := string(b.Input)
		if !r.streamed[i] && input != "" {
			if err := r.emit(model.Chunk{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: b.ID, Name: b.Name, Arguments: input}}); err != nil {
				return err
			}
		}
		// The call exactly as readReply maps it.
		return r.emit(model.Chunk{Kind: model.ChunkToolCall, ToolCall: &model.ToolCall{ID: b.ID, Name: b.Name, Payload: slices.Clone(b.Input)}})
	case b.Type == "tool_search_tool_result":
		round, ok := hostedRound(r.msg.Content, b, r.tools)
		if !ok {
			return nil
		}
		return r.emit(model.Chunk{Kind: model.ChunkSearch, Search: &round})
	}
	return nil
}
