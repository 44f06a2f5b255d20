package compat

import (
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/quiver-go/quiver/model"
)

// calls follows the tool calls of a streamed choice: each fragment becomes
// a model.ChunkToolCallDelta, and a call becomes a model.ChunkToolCall
// once the next call starts or the choice finishes.
type calls struct {
	// byIndex are the calls seen so far, by their wire index.
	byIndex map[int64]*forming
	// open is the index of the call being written; -1 (or no call yet)
	// when none is.
	open int64
	// started says whether any call was announced.
	started bool
	// finished says whether finish_reason arrived.
	finished bool
}

// forming is a call the model is writing.
type forming struct {
	id, name  string
	arguments strings.Builder
	delivered bool
}

// fragment takes one tool-call fragment and returns its chunks: the
// previous call when this one starts the next, then the delta.
func (c *calls) fragment(tc openai.ChatCompletionChunkChoiceDeltaToolCall) ([]model.Chunk, error) {
	if c.byIndex == nil {
		c.byIndex = map[int64]*forming{}
	}
	var out []model.Chunk
	f, seen := c.byIndex[tc.Index]
	switch {
	case !seen:
		if tc.ID == "" {
			return nil, fmt.Errorf("%w: tool call %d started without an id", ErrBrokenStream, tc.Index)
		}
		if c.started {
			out = append(out, c.deliver(c.open)...)
		}
		f = &forming{id: tc.ID}
		c.byIndex[tc.Index] = f
		c.open, c.started = tc.Index, true
	case f.delivered:
		return nil, fmt.Errorf("%w: a fragment of tool call %d (%q) arrived after the call was finished", ErrBrokenStream, tc.Index, f.id)
	case tc.ID != "" && tc.ID != f.id:
		return nil, fmt.Errorf("%w: tool call %d changed its id from %q to %q", ErrBrokenStream, tc.Index, f.id, tc.ID)
	}
	f.name += tc.Function.Name
	f.arguments.WriteString(tc.Function.Arguments)
	out = append(out, model.Chunk{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{
		ID: f.id, Name: f.name, Arguments: tc.Function.Arguments,
	}})
	return out, nil
}

// finish marks the choice finished and returns the open call, if any.
func (c *calls) finish() []model.Chunk {
	c.finished = true
	if !c.started {
		return nil
	}
	return c.deliver(c.open)
}

// deliver returns the ChunkToolCall of call i, once: its payload is the
// arguments text as Response.ToolCalls holds it.
func (c *calls) deliver(i int64) []model.Chunk {
	f := c.byIndex[i]
	if f == nil || f.delivered {
		return nil
	}
	f.delivered = true
	call := model.ToolCall{ID: f.id, Name: f.name, Payload: arguments(f.arguments.String())}
	return []model.Chunk{{Kind: model.ChunkToolCall, ToolCall: &call}}
}
