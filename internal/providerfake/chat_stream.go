package providerfake

import (
	"encoding/json"

	"github.com/quiver-go/quiver/internal/pieces"
)

// Streamed Chat Completions: the chat.completion.chunk events
// (openai.ChatCompletionChunk of openai-go v3.99.0) a server sends for a
// request with "stream": true and "stream_options": {"include_usage":
// true}, ending with "data: [DONE]".

// chatCompletion is the part of a chat.completion the stream repeats.
type chatCompletion struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// chatStreamOf converts a whole chat.completion into its stream.
func chatStreamOf(body []byte) ([]Event, string, bool) {
	events, ok := chatStream(body)
	return events, "text/event-stream", ok
}

// ChatStreamEvents returns the events a Chat Completions server streams
// for completionJSON (a chat.completion, e.g. built by [ChatCompletion]):
// a role chunk, the text in pieces, each tool call announced with its id
// and name and then its arguments in pieces, the finish_reason chunk, a
// usage chunk, then "data: [DONE]". Tests that hold events back (Wait) or
// cut the stream (Answer.Cut) edit the slice; a whole scripted
// chat.completion answering a stream request is converted the same way.
// It returns nil when completionJSON is not a chat.completion.
func ChatStreamEvents(completionJSON string) []Event {
	events, _ := chatStream([]byte(completionJSON))
	return events
}

// chatStream builds the events of body, or reports that body is not a
// chat.completion with one choice.
func chatStream(body []byte) ([]Event, bool) {
	var cc chatCompletion
	if json.Unmarshal(body, &cc) != nil || cc.Object != "chat.completion" || len(cc.Choices) != 1 {
		return nil, false
	}
	ch := cc.Choices[0]
	head := map[string]any{"id": cc.ID, "object": "chat.completion.chunk", "created": cc.Created, "model": cc.Model}
	chunk := func(delta map[string]any, finish any) Event {
		c := map[string]any{"choices": []any{map[string]any{"index": ch.Index, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
		return Event{Data: chunkJSON(head, c)}
	}
	events := []Event{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	if c := ch.Message.Content; c != nil {
		for _, piece := range pieces.Words(*c) {
			events = append(events, chunk(map[string]any{"content": piece}, nil))
		}
	}
	for i, tc := range ch.Message.ToolCalls {
		events = append(events, chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Function.Name, "arguments": ""},
		}}}, nil))
		for _, piece := range pieces.Bytes(tc.Function.Arguments, 8) {
			events = append(events, chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": piece},
			}}}, nil))
		}
	}
	events = append(events, chunk(map[string]any{}, ch.FinishReason))
	if len(cc.Usage) > 0 && string(cc.Usage) != "null" {
		events = append(events, Event{Data: chunkJSON(head, map[string]any{"choices": []any{}, "usage": cc.Usage})})
	}
	return append(events, Event{Data: "[DONE]"}), true
}

// chunkJSON encodes a chunk: the head fields and the chunk's own.
func chunkJSON(head, fields map[string]any) string {
	all := make(map[string]any, len(head)+len(fields))
	for k, v := range head {
		all[k] = v
	}
	for k, v := range fields {
		all[k] = v
	}
	raw, _ := json.Marshal(all) // maps of strings, numbers and raw JSON always encode
	return string(raw)
}
