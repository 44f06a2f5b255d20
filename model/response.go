package model

import "context"

// StopReason says why the model stopped.
type StopReason string

// The stop reasons.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
)

// Usage counts tokens.
type Usage struct {
	InputTokens      int `json:"input_tokens,omitempty"`
	OutputTokens     int `json:"output_tokens,omitempty"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// Add returns u + o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + o.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
	}
}

// Response is the outcome of one model invocation.
type Response struct {
	// Messages are the assistant message(s) to append to the transcript,
	// with provider metadata (search rounds, discovered names).
	Messages []Message `json:"messages"`
	// ToolCalls are the ordinary tool calls the model made (never search
	// calls, which adapters answer themselves).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Usage     Usage      `json:"usage"`
	// StopReason says why the model stopped.
	StopReason StopReason `json:"stop_reason,omitempty"`
	// IgnoredCheckpoints are the prompt-cache checkpoints the request asked
	// for ([Request.Cache]) that the provider cannot place, in order and
	// without repeats: the adapter left them out of what it sent. A
	// provider without prompt caching ignores every checkpoint; one with
	// caching ignores a checkpoint that marks nothing (AfterSystem without
	// a system prompt, AfterTools without tools). It is not an error: a
	// checkpoint only lets the provider reuse a prefix it has already
	// processed, it never changes what the model reads or answers, so the
	// invocation is complete without it — the response only says what was
	// not cached, for callers to report (the runtime emits one
	// CacheCheckpointIgnored event per run and checkpoint).
	IgnoredCheckpoints []CacheCheckpoint `json:"ignored_checkpoints,omitempty"`
}

// Text returns the text of the response's assistant messages.
func (r *Response) Text() string {
	var s string
	for _, m := range r.Messages {
		s += m.TextContent()
	}
	return s
}

// Client invokes a model.
type Client interface {
	// Complete runs one invocation to its end.
	Complete(ctx context.Context, req *Request) (*Response, error)
	// Stream runs one invocation, delivering output as it arrives.
	Stream(ctx context.Context, req *Request) (Streamer, error)
}

// Streamer delivers one streamed invocation.
//
// The contract, for adapters and for outside [Client] implementations:
//
//   - Recv returns the invocation's chunks in the order the provider
//     produced them, then exactly one [ChunkDone] carrying the whole
//     [Response], then [io.EOF] on every later call.
//   - Everything before ChunkDone is provisional: a call is run, and text
//     is final, only once ChunkDone has arrived. A stream that ends
//     without it — the connection dropped, the provider stopped sending —
//     fails with an error wrapping [ErrStreamInterrupted], and what was
//     streamed before is void.
//   - A call forming is [ChunkToolCallDelta] pieces (its id and name on
//     each), then one [ChunkToolCall] with the call as [Response.ToolCalls]
//     holds it. The deltas' Arguments joined are the arguments text the
//     provider sent.
//   - Search rounds our code answers inside the invocation (client-executed
//     or portable search) are one [ChunkSearch] each, in the middle of the
//     stream; the search tool's own calls never appear as deltas or calls.
//   - Each provider request of the invocation ends with a [ChunkUsage]; the
//     usages of an invocation add up to the final response's.
//   - Consumers ignore chunk kinds they do not know: kinds are added.
//   - Close may be called at any time, more than once; closing a stream
//     before its end cancels the provider request.
type Streamer interface {
	// Recv returns the next chunk; the last one has Kind [ChunkDone] and
	// carries the whole [Response]. After it Recv returns [io.EOF].
	Recv() (Chunk, error)
	// Close releases the stream, cancelling the request if it is still
	// running.
	Close() error
}

// ChunkKind says what a [Chunk] holds.
type ChunkKind string

// The chunk kinds.
const (
	// ChunkText is a piece of the assistant's text ([Chunk.Text]).
	ChunkText ChunkKind = "text"
	// ChunkToolCallDelta is a piece of a forming call's arguments
	// ([Chunk.ToolCallDelta]).
	ChunkToolCallDelta ChunkKind = "tool_call_delta"
	// ChunkToolCall is a call the model finished writing ([Chunk.ToolCall]).
	ChunkToolCall ChunkKind = "tool_call"
	// ChunkSearch is a search round our code answered in the middle of the
	// invocation ([Chunk.Search]).
	ChunkSearch ChunkKind = "search"
	// ChunkUsage is the usage of one provider request of the invocation
	// ([Chunk.Usage]).
	ChunkUsage ChunkKind = "usage"
	// ChunkDone ends the stream with the whole response ([Chunk.Response]).
	ChunkDone ChunkKind = "done"
)

// Chunk is one piece of a streamed response. Kind says which field is set.
type Chunk struct {
	Kind ChunkKind
	// Text is the piece of text of a [ChunkText].
	Text string
	// ToolCallDelta is the piece of a [ChunkToolCallDelta].
	ToolCallDelta *ToolCallDelta
	// ToolCall is the finished call of a [ChunkToolCall].
	ToolCall *ToolCall
	// Search is the round of a [ChunkSearch].
	Search *SearchRound
	// Usage is the usage of a [ChunkUsage].
	Usage *Usage
	// Response is the complete response, on the [ChunkDone] chunk.
	Response *Response
}

// ToolCallDelta is a piece of the arguments of a call the model is
// writing.
type ToolCallDelta struct {
	// ID is the call's id, the one its [ChunkToolCall] will carry.
	ID string
	// Name is the called tool's wire name.
	Name string
	// Arguments is the next piece of the arguments text (possibly empty on
	// the first delta, which announces the call).
	Arguments string
}

// SearchRound is a search our code answered in the middle of an
// invocation.
type SearchRound struct {
	// Query is what the model searched for.
	Query string
	// Found are the wire names of the tools the search made callable, in
	// rank order (none when nothing matched or the budget was spent).
	Found []string
}

// TokenCounter counts the input tokens of messages exactly as a model would.
// History policies with token thresholds need one.
type TokenCounter interface {
	CountTokens(ctx context.Context, system string, msgs []Message) (int, error)
}
