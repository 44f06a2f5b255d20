package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/openai/openai-go/v3"

	"github.com/quiver-go/quiver/model"
)

// buildParams maps req onto the Chat Completions request body.
//
// Wire shape (openai-go/v3 ChatCompletionNewParams, chatcompletion.go;
// https://platform.openai.com/docs/api-reference/chat/create):
//
//	{"model": "...", "messages": [...], "tools": [...],
//	 "tool_choice": "none" | "required" | {"type":"function","function":{"name":"..."}},
//	 "max_tokens": N  (or "max_completion_tokens": N, see TokenLimitField)}
//
// tool_choice is omitted for ToolChoiceAuto: "auto" is the API's default
// when tools are present and "none" when there are none.
func buildParams(req *model.Request, modelID string, field TokenLimitField) (openai.ChatCompletionNewParams, error) {
	var p openai.ChatCompletionNewParams
	if req.MaxTokens < 0 {
		return p, fmt.Errorf("compat: MaxTokens is %d: use 0 for the server's default or a positive cap", req.MaxTokens)
	}
	msgs, err := toMessages(req.System, req.Messages)
	if err != nil {
		return p, err
	}
	tools, err := toTools(req.Tools)
	if err != nil {
		return p, err
	}
	choice, err := toToolChoice(req.ToolChoice, req.Tools)
	if err != nil {
		return p, err
	}
	p.Model = modelID
	p.Messages = msgs
	p.Tools = tools
	p.ToolChoice = choice
	if req.MaxTokens > 0 {
		if field == FieldMaxCompletionTokens {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	return p, nil
}

// ignoredCheckpoints lists the prompt-cache checkpoints of req, all of
// which this client leaves out of the request body. OpenAI-compatible
// servers cache prefixes on their own (vLLM's automatic prefix caching,
// llama-server's cache_prompt) and take no checkpoint in the request.
// openai-go/v3 does declare a per-content-part prompt_cache_breakpoint for
// OpenAI's newest models, but the servers this client targets do not know
// it, and some refuse fields they do not know: so a checkpoint is never
// sent, and the response lists it (model.Response.IgnoredCheckpoints).
func ignoredCheckpoints(req *model.Request) []model.CacheCheckpoint {
	return req.Cache.Requested()
}

// toMessages maps the system prompt and the conversation onto wire
// messages. Message.Meta is never read here, so it is never sent.
//
// Wire shapes (openai-go/v3 ChatCompletionMessageParamUnion and its
// variants ChatCompletionSystemMessageParam, ChatCompletionUserMessageParam,
// ChatCompletionAssistantMessageParam, ChatCompletionToolMessageParam):
//
//	{"role":"system","content":"..."}
//	{"role":"user","content":"..."}
//	{"role":"assistant","content":"...","tool_calls":[
//	  {"id":"call_1","type":"function","function":{"name":"...","arguments":"{...}"}}]}
//	{"role":"tool","tool_call_id":"call_1","content":"..."}
//
// The assistant's content is omitted when it only calls tools ("Required
// unless tool_calls or function_call is specified", SDK doc). A tool
// message answers exactly one call, so a model.Message holding several
// results becomes several tool messages, in order. ToolResult.IsError has
// no wire field: the result's content is what tells the model it failed.
func toMessages(system string, msgs []model.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs)+1)
	if system != "" {
		out = append(out, openai.SystemMessage(system))
	}
	for i, m := range msgs {
		switch m.Role {
		case model.RoleSystem:
			if err := onlyText(i, m); err != nil {
				return nil, err
			}
			out = append(out, openai.SystemMessage(m.TextContent()))
		case model.RoleUser:
			if err := onlyText(i, m); err != nil {
				return nil, err
			}
			out = append(out, openai.UserMessage(m.TextContent()))
		case model.RoleAssistant:
			a, err := toAssistant(i, m)
			if err != nil {
				return nil, err
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: a})
		case model.RoleTool:
			for _, p := range m.Parts {
				if p.Kind != model.PartToolResult || p.ToolResult == nil {
					return nil, fmt.Errorf("compat: message %d (tool) holds a %q part: tool messages carry only tool results", i, p.Kind)
				}
				if p.ToolResult.CallID == "" {
					return nil, fmt.Errorf("compat: message %d: the result of %q has no call id, which role \"tool\" messages require", i, p.ToolResult.Name)
				}
				out = append(out, openai.ToolMessage(string(p.ToolResult.Content), p.ToolResult.CallID))
			}
		default:
			return nil, fmt.Errorf("compat: message %d has role %q, which Chat Completions does not know", i, m.Role)
		}
	}
	return out, nil
}

// onlyText checks that a system or user message holds only text.
func onlyText(i int, m model.Message) error {
	for _, p := range m.Parts {
		if p.Kind != model.PartText {
			return fmt.Errorf("compat: message %d (%s) holds a %q part: only assistant messages carry tool calls and only tool messages carry results", i, m.Role, p.Kind)
		}
	}
	return nil
}

// toAssistant maps an assistant message: its text and its tool calls.
func toAssistant(i int, m model.Message) (*openai.ChatCompletionAssistantMessageParam, error) {
	a := &openai.ChatCompletionAssistantMessageParam{}
	for _, p := range m.Parts {
		switch {
		case p.Kind == model.PartText:
		case p.Kind == model.PartToolCall && p.ToolCall != nil:
			tc := p.ToolCall
			if tc.ID == "" || tc.Name == "" {
				return nil, fmt.Errorf("compat: message %d: tool call %q (id %q) needs both an id and a name on the wire", i, tc.Name, tc.ID)
			}
			args := string(tc.Payload)
			if len(tc.Payload) == 0 {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
				},
			})
		default:
			return nil, fmt.Errorf("compat: message %d (assistant) holds a %q part: assistant messages carry text and tool calls", i, p.Kind)
		}
	}
	if text := m.TextContent(); text != "" || len(a.ToolCalls) == 0 {
		a.Content.OfString = openai.String(text)
	}
	return a, nil
}

// toTools maps definitions onto function tools.
//
// Wire shape (openai-go/v3 ChatCompletionFunctionToolParam with
// shared.FunctionDefinitionParam):
//
//	{"type":"function","function":{"name":"...","description":"...","parameters":{...}}}
//
// The schema's members are passed as json.RawMessage values so the SDK
// writes them verbatim (numbers keep their precision). An empty schema
// omits "parameters", which the SDK documents as "a function with an empty
// parameter list". Title, Ident, Examples and the search document have no
// Chat Completions field and are not sent.
func toTools(defs []model.ToolDefinition) ([]openai.ChatCompletionToolUnionParam, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for _, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("compat: tool %q has no wire name", d.Ident)
		}
		if seen[d.Name] {
			return nil, fmt.Errorf("compat: two tools are named %q: wire names must be unique", d.Name)
		}
		seen[d.Name] = true
		fn := openai.FunctionDefinitionParam{Name: d.Name}
		if d.Description != "" {
			fn.Description = openai.String(d.Description)
		}
		if len(d.InputSchema) > 0 {
			var members map[string]json.RawMessage
			if err := json.Unmarshal(d.InputSchema, &members); err != nil || members == nil {
				return nil, fmt.Errorf("compat: the input schema of tool %q is not a JSON object", d.Name)
			}
			fn.Parameters = make(openai.FunctionParameters, len(members))
			for k, v := range members {
				fn.Parameters[k] = v
			}
		}
		out = append(out, openai.ChatCompletionFunctionTool(fn))
	}
	return out, nil
}

// toToolChoice maps the tool choice.
//
// Wire shape (openai-go/v3 ChatCompletionToolChoiceOptionUnionParam): the
// strings "none" / "auto" / "required", or the named function
// {"type":"function","function":{"name":"..."}}
// (ChatCompletionNamedToolChoiceParam).
func toToolChoice(tc model.ToolChoice, defs []model.ToolDefinition) (openai.ChatCompletionToolChoiceOptionUnionParam, error) {
	var u openai.ChatCompletionToolChoiceOptionUnionParam
	switch tc.Mode {
	case model.ToolChoiceAuto:
		return u, nil
	case model.ToolChoiceNone:
		u.OfAuto = openai.String(string(openai.ChatCompletionToolChoiceOptionAutoNone))
	case model.ToolChoiceRequired:
		if len(defs) == 0 {
			return u, errors.New("compat: tool choice \"required\" with no tools: advertise a tool or use auto")
		}
		u.OfAuto = openai.String(string(openai.ChatCompletionToolChoiceOptionAutoRequired))
	case model.ToolChoiceTool:
		if !slices.ContainsFunc(defs, func(d model.ToolDefinition) bool { return d.Name == tc.Name }) {
			return u, fmt.Errorf("compat: tool choice forces %q, which is not among the request's tools", tc.Name)
		}
		u = openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: tc.Name})
	default:
		return u, fmt.Errorf("compat: unknown tool choice mode %q", tc.Mode)
	}
	return u, nil
}
