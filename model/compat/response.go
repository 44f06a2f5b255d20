package compat

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/quiver-go/quiver/model"
)

// ErrNoChoice is wrapped when the server answers without any choice.
var ErrNoChoice = errors.New("compat: no choice")

// toResponse maps a chat completion onto a model.Response.
//
// Wire shape (openai-go/v3 ChatCompletion, ChatCompletionChoice,
// ChatCompletionMessage, ChatCompletionMessageToolCallUnion, CompletionUsage;
// https://platform.openai.com/docs/api-reference/chat/object):
//
//	{"id":"...","object":"chat.completion","model":"...",
//	 "choices":[{"index":0,"finish_reason":"tool_calls","message":{
//	   "role":"assistant","content":"...","tool_calls":[
//	     {"id":"call_1","type":"function","function":{"name":"...","arguments":"{...}"}}]}}],
//	 "usage":{"prompt_tokens":N,"completion_tokens":N,
//	          "prompt_tokens_details":{"cached_tokens":N}}}
//
// The request never sets "n", so the first choice is the answer.
func toResponse(cc *openai.ChatCompletion) (*model.Response, error) {
	if len(cc.Choices) == 0 {
		return nil, fmt.Errorf("%w: the server answered completion %q without a choice", ErrNoChoice, cc.ID)
	}
	ch := cc.Choices[0]
	msg, calls, err := toAssistantMessage(ch.Message)
	if err != nil {
		return nil, err
	}
	return &model.Response{
		Messages:   []model.Message{msg},
		ToolCalls:  calls,
		Usage:      toUsage(cc.Usage),
		StopReason: toStopReason(ch.FinishReason),
	}, nil
}

// toAssistantMessage maps the assistant's message: its text (or refusal,
// which is what the model said) and its function calls, returned twice —
// as parts of the message for the transcript and as Response.ToolCalls.
func toAssistantMessage(m openai.ChatCompletionMessage) (model.Message, []model.ToolCall, error) {
	msg := model.Message{Role: model.RoleAssistant}
	text := m.Content
	if text == "" {
		text = m.Refusal
	}
	if text != "" {
		msg.Parts = append(msg.Parts, model.Text(text))
	}
	var calls []model.ToolCall
	for _, tc := range m.ToolCalls {
		// Accumulated stream chunks may leave the type empty; everything
		// that is not "custom" is a function call.
		if tc.Type == "custom" {
			return model.Message{}, nil, fmt.Errorf("compat: the server returned a custom tool call %q; this client only advertises function tools", tc.Custom.Name)
		}
		if tc.ID == "" || tc.Function.Name == "" {
			return model.Message{}, nil, fmt.Errorf("compat: the server returned a tool call without an id or a name (id %q, name %q)", tc.ID, tc.Function.Name)
		}
		call := model.ToolCall{ID: tc.ID, Name: tc.Function.Name, Payload: arguments(tc.Function.Arguments)}
		calls = append(calls, call)
		part := call
		part.Payload = append(json.RawMessage(nil), call.Payload...)
		msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolCall, ToolCall: &part})
	}
	return msg, calls, nil
}

// arguments turns the function's "arguments" string into a payload.
// Servers send a JSON object as text ("Note that the model does not always
// generate valid JSON", SDK doc of ChatCompletionMessageFunctionToolCallFunction):
// empty arguments become {} and text that is not JSON is kept as a JSON
// string, so the transcript stays valid JSON and the tool's codec refuses
// the call with a message the model can act on instead of the whole
// invocation failing here.
func arguments(s string) json.RawMessage {
	switch {
	case s == "":
		return json.RawMessage(`{}`)
	case json.Valid([]byte(s)):
		return json.RawMessage(s)
	default:
		raw, _ := json.Marshal(s) // a string always encodes
		return raw
	}
}

// toUsage maps token counts. prompt_tokens includes the cached prefix as the
// server counts it; cached_tokens is reported separately when the server
// fills prompt_tokens_details (vLLM and OpenAI do; many servers omit it).
// No checkpoint is ever requested, so nothing is written to a cache by
// request and CacheWriteTokens stays zero unless the server reports it.
func toUsage(u openai.CompletionUsage) model.Usage {
	return model.Usage{
		InputTokens:      int(u.PromptTokens),
		OutputTokens:     int(u.CompletionTokens),
		CacheReadTokens:  int(u.PromptTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.PromptTokensDetails.CacheWriteTokens),
	}
}

// toStopReason maps finish_reason ("stop", "length", "tool_calls",
// "content_filter", "function_call" per the SDK doc of
// ChatCompletionChoice.FinishReason). Values with no model equivalent
// (content_filter, server-specific ones) pass through unchanged rather than
// being disguised as a normal end of turn.
func toStopReason(finish string) model.StopReason {
	switch finish {
	case "stop":
		return model.StopEndTurn
	case "length":
		return model.StopMaxTokens
	case "tool_calls", "function_call":
		return model.StopToolUse
	default:
		return model.StopReason(finish)
	}
}
