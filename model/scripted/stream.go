package scripted

import (
	"context"
	"errors"
	"slices"

	"github.com/quiver-go/quiver/internal/pieces"
	"github.com/quiver-go/quiver/model"
)

// WithStreaming makes c stream the way a provider does: Stream then
// delivers the text of each response in word pieces and each call's
// arguments in pieces (model.ChunkToolCallDelta) before its
// model.ChunkToolCall, then a model.ChunkUsage and model.ChunkDone.
// Without it Stream delivers one chunk per part (model.ResponseStream).
// It returns c, for chaining after New:
//
//	client := scripted.New(steps...).WithStreaming()
func (c *Client) WithStreaming() *Client {
	c.streaming.Store(true)
	return c
}

// Stream answers req with the next step of the script, as chunks. The
// step is played when Stream is called: errors that Complete would return
// are returned by Stream itself, except a FailMidStream step's, which the
// stream's Recv returns after its text. The chunks are one per text part
// and one per tool call of Response.ToolCalls, then a usage chunk when the
// usage is not zero (model.ResponseStream); after WithStreaming, text in
// word pieces and each call's arguments in pieces before the call, then
// always a usage chunk. The last chunk is ChunkDone with the response;
// then Recv returns io.EOF. Recv fails once ctx is cancelled; Close may be
// called at any time.
func (c *Client) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := c.Complete(ctx, req)
	var mid *midStream
	if errors.As(err, &mid) {
		return model.NewStream(ctx, func(ctx context.Context, emit func(model.Chunk) error) (*model.Response, error) {
			for _, piece := range pieces.Words(mid.text) {
				if err := emit(model.Chunk{Kind: model.ChunkText, Text: piece}); err != nil {
					return nil, err
				}
			}
			return nil, err
		}), nil
	}
	if err != nil {
		return nil, err
	}
	if !c.streaming.Load() {
		return model.ResponseStream(ctx, resp), nil
	}
	return model.NewStream(ctx, func(ctx context.Context, emit func(model.Chunk) error) (*model.Response, error) {
		for _, ch := range pieceChunks(resp) {
			if err := emit(ch); err != nil {
				return nil, err
			}
		}
		return resp, nil
	}), nil
}

// pieceChunks returns the chunks of resp as a provider streams them: the
// parts of its messages in order — text in word pieces, each call of
// Response.ToolCalls as deltas then the call where its part is (calls
// without a part after the messages) — then the usage.
func pieceChunks(resp *model.Response) []model.Chunk {
	var out []model.Chunk
	pending := slices.Clone(resp.ToolCalls)
	call := func(tc model.ToolCall) {
		out = append(out, model.Chunk{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: tc.ID, Name: tc.Name}})
		for _, piece := range pieces.Bytes(string(tc.Payload), 8) {
			out = append(out, model.Chunk{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: tc.ID, Name: tc.Name, Arguments: piece}})
		}
		tc.Payload = slices.Clone(tc.Payload)
		out = append(out, model.Chunk{Kind: model.ChunkToolCall, ToolCall: &tc})
	}
	for _, m := range resp.Messages {
		for _, p := range m.Parts {
			switch {
			case p.Kind == model.PartText:
				for _, piece := range pieces.Words(p.Text) {
					out = append(out, model.Chunk{Kind: model.ChunkText, Text: piece})
				}
			case p.Kind == model.PartToolCall && p.ToolCall != nil:
				i := slices.IndexFunc(pending, func(tc model.ToolCall) bool { return tc.ID == p.ToolCall.ID })
				if i >= 0 {
					call(pending[i])
					pending = slices.Delete(pending, i, i+1)
				}
			}
		}
	}
	for _, tc := range pending {
		call(tc)
	}
	u := resp.Usage
	return append(out, model.Chunk{Kind: model.ChunkUsage, Usage: &u})
}
