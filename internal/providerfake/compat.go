package providerfake

import "encoding/json"

// OpenAI-compatible Chat Completions (POST /v1/chat/completions): a
// chat.completion object (openai.ChatCompletion of openai-go v3.99.0, the
// SDK model/compat decodes it with).

// ChatCall is a function call of an assistant message.
type ChatCall struct {
	ID, Name, Args string
}

// ChatCompletion is a chat.completion of qwen3-8b with one choice that
// finished for finish (stop, tool_calls, length…): an assistant message
// with content (null when empty) and the calls.
func ChatCompletion(finish, content string, u Usage, calls ...ChatCall) string {
	msg := map[string]any{"role": "assistant", "content": nil}
	if content != "" {
		msg["content"] = content
	}
	if len(calls) > 0 {
		tcs := make([]any, len(calls))
		for i, c := range calls {
			tcs[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}}
		}
		msg["tool_calls"] = tcs
	}
	usage := map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output}
	if u.CacheRead > 0 {
		usage["prompt_tokens_details"] = map[string]any{"cached_tokens": u.CacheRead}
	}
	raw, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600, "model": "qwen3-8b",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage":   usage,
	})
	return string(raw)
}

// ChatToolCall is a chat.completion calling one function.
func ChatToolCall(id, name, args string, u Usage) string {
	return ChatCompletion("tool_calls", "", u, ChatCall{ID: id, Name: name, Args: args})
}

// ChatReply is a chat.completion answering with text.
func ChatReply(text string, u Usage) string { return ChatCompletion("stop", text, u) }
