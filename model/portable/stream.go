package portable

import (
	"context"

	"github.com/quiver-go/quiver/model"
)

// Stream implements model.Client. Requests the wrapper does not answer
// (Handles) stream from the inner client unchanged. In portable mode each
// round streams from the inner client's Stream: text, argument deltas,
// calls and usage pass through as they arrive, except the search tool's
// own deltas and calls; each search the wrapper answers between two
// rounds is a model.ChunkSearch, and the tools it found join the active
// set before the next round's request, as in Complete. In call-tool mode
// a call_tool call reaches the stream as the call of the tool it names
// (one delta with its arguments, then the call), and an unreadable one,
// which the wrapper answers, not at all. The final chunk carries the
// response Complete would have returned. Errors Complete returns before
// the first request are returned by Stream itself; a round that fails
// fails the stream (an interrupted inner stream with
// model.ErrStreamInterrupted). Close cancels the round in flight.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	if req == nil {
		return nil, errNilRequest
	}
	if !Handles(req) {
		return c.inner.Stream(ctx, req)
	}
	if c.err != nil {
		return nil, c.err
	}
	s, err := c.newSession(req)
	if err != nil {
		return nil, err
	}
	return model.NewStream(ctx, func(ctx context.Context, emit func(model.Chunk) error) (*model.Response, error) {
		searched := func(rounds []model.SearchRound) error {
			for i := range rounds {
				if err := emit(model.Chunk{Kind: model.ChunkSearch, Search: &rounds[i]}); err != nil {
					return err
				}
			}
			return nil
		}
		resp, err := s.run(ctx, s.streamRound(emit), searched)
		if err != nil {
			return nil, err
		}
		model.RecordForcedTool(req, resp)
		return resp, nil
	}), nil
}

// streamRound returns the round that streams one request from the inner
// client, passing its chunks to emit (pass decides which) and returning
// the round's whole response.
func (s *session) streamRound(emit func(model.Chunk) error) round {
	return func(ctx context.Context, req *model.Request) (*model.Response, error) {
		st, err := s.c.inner.Stream(ctx, req)
		if err != nil {
			return nil, err
		}
		return model.Collect(st, func(c model.Chunk) error {
			for _, out := range s.pass(c) {
				if err := emit(out); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// pass returns what the stream delivers of an inner chunk: the chunk
// itself, except for the search tool's deltas and calls (answered here,
// never shown) and, in call-tool mode, call_tool's: its deltas are
// dropped and its finished call becomes a delta and the call of the tool
// it names, as Response.ToolCalls holds it — or nothing, when its
// arguments cannot be read and the wrapper answers it.
func (s *session) pass(c model.Chunk) []model.Chunk {
	switch {
	case c.Kind == model.ChunkToolCallDelta && c.ToolCallDelta != nil:
		if s.own(c.ToolCallDelta.Name) {
			return nil
		}
	case c.Kind == model.ChunkToolCall && c.ToolCall != nil:
		tc := *c.ToolCall
		if tc.Name == s.name {
			return nil
		}
		if s.callTool && tc.Name == model.CallToolName {
			call, err := s.unwrap(tc)
			if err != nil {
				return nil
			}
			return []model.Chunk{
				{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: call.ID, Name: call.Name, Arguments: string(call.Payload)}},
				{Kind: model.ChunkToolCall, ToolCall: &call},
			}
		}
	}
	return []model.Chunk{c}
}

// own reports whether name is a function whose calls the wrapper reads
// itself: the search tool, and call_tool in call-tool mode.
func (s *session) own(name string) bool {
	return name == s.name || (s.callTool && name == model.CallToolName)
}
