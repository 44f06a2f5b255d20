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
type Streamer interface {
	// Recv returns the next chunk; the last one has Kind [ChunkDone] and
	// carries the whole [Response]. After it Recv returns [io.EOF].
	Recv() (Chunk, error)
	// Close releases the stream.
	Close() error
}

// ChunkKind says what a [Chunk] holds.
type ChunkKind string

// The chunk kinds.
const (
	ChunkText     ChunkKind = "text"
	ChunkToolCall ChunkKind = "tool_call"
	ChunkDone     ChunkKind = "done"
)

// Chunk is one piece of a streamed response.
type Chunk struct {
	Kind     ChunkKind
	Text     string
	ToolCall *ToolCall
	// Response is the complete response, on the [ChunkDone] chunk.
	Response *Response
}

// TokenCounter counts the input tokens of messages exactly as a model would.
// History policies with token thresholds need one.
type TokenCounter interface {
	CountTokens(ctx context.Context, system string, msgs []Message) (int, error)
}
