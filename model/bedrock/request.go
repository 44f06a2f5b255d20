package bedrock

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/quiver-go/quiver/model"
)

// buildInput maps req onto a Converse request.
//
// Wire shape (bedrockruntime ConverseInput; Bedrock API reference,
// Converse):
//
//	POST /model/{modelId}/converse
//	{"system":[{"text":"..."}], "messages":[...],
//	 "toolConfig":{"tools":[{"toolSpec":{...}}], "toolChoice":{...}},
//	 "inferenceConfig":{"maxTokens":N, "temperature":T}}
//
// ToolChoiceNone sends no toolConfig: Converse has no "none" choice, and
// a model offered no tools calls none. Converse refuses toolUse and
// toolResult blocks in a request without toolConfig ("The toolConfig field
// must be defined when using toolUse and toolResult content blocks"), so
// when no toolConfig is sent — ToolChoiceNone, or no tools, as in the
// standard planner's final answer — the transcript's tool calls and
// results are sent as text blocks instead (toolText).
func buildInput(req *model.Request, modelID string, temperature *float32) (*bedrockruntime.ConverseInput, error) {
	if req.MaxTokens < 0 || req.MaxTokens > math.MaxInt32 {
		return nil, fmt.Errorf("bedrock: MaxTokens is %d: use 0 for the model's default or a positive cap", req.MaxTokens)
	}
	var tc *types.ToolConfiguration
	if req.ToolChoice.Mode != model.ToolChoiceNone {
		var err error
		if tc, err = toToolConfig(req.Tools, req.ToolChoice); err != nil {
			return nil, err
		}
	}
	msgs, err := toMessages(req.Messages, isClaude(modelID), tc == nil)
	if err != nil {
		return nil, err
	}
	in := &bedrockruntime.ConverseInput{ModelId: aws.String(modelID), Messages: msgs, ToolConfig: tc}
	if in.OutputConfig, err = outputConfig(req.StructuredOutput); err != nil {
		return nil, err
	}
	if req.System != "" {
		in.System = []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: req.System}}
	}
	if req.MaxTokens > 0 || temperature != nil {
		in.InferenceConfig = &types.InferenceConfiguration{Temperature: temperature}
		if req.MaxTokens > 0 {
			in.InferenceConfig.MaxTokens = aws.Int32(int32(req.MaxTokens))
		}
	}
	return in, nil
}

// isClaude reports whether a model id, inference profile id or ARN names
// an Anthropic Claude model ("anthropic.claude-…", "us.anthropic.claude-…").
func isClaude(id string) bool { return strings.Contains(id, "anthropic.claude") }

// toMessages maps the conversation onto Converse messages. Message.Meta is
// never read here, so it is never sent.
//
// Wire shapes (types.Message, types.ContentBlock members):
//
//	{"role":"user","content":[{"text":"..."}]}
//	{"role":"assistant","content":[{"text":"..."},
//	  {"toolUse":{"toolUseId":"...","name":"...","input":{...}}}]}
//	{"role":"user","content":[{"toolResult":{"toolUseId":"...",
//	  "content":[{"text":"<result JSON>"}],"status":"error"}}]}
//
// Converse has only the user and assistant roles: tool results travel in a
// user message, and consecutive user-side messages (results, then text)
// are merged into one, since Converse requires the roles to alternate. A
// system message inside the conversation has no Converse place and is an
// error (use Request.System). The result's JSON is sent as text, the
// content every Converse model accepts; status "error" only for Claude ids
// (the API reference: "only supported by Anthropic Claude 3 models").
// With asText, tool calls and results become text blocks (toolText).
func toMessages(msgs []model.Message, claude, asText bool) ([]types.Message, error) {
	out := make([]types.Message, 0, len(msgs))
	add := func(role types.ConversationRole, blocks []types.ContentBlock) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, types.Message{Role: role, Content: blocks})
	}
	for i, m := range msgs {
		switch m.Role {
		case model.RoleUser:
			blocks, err := textBlocks(i, m)
			if err != nil {
				return nil, err
			}
			add(types.ConversationRoleUser, blocks)
		case model.RoleAssistant:
			blocks, err := assistantBlocks(i, m, asText)
			if err != nil {
				return nil, err
			}
			add(types.ConversationRoleAssistant, blocks)
		case model.RoleTool:
			blocks, err := resultBlocks(i, m, claude, asText)
			if err != nil {
				return nil, err
			}
			add(types.ConversationRoleUser, blocks)
		case model.RoleSystem:
			return nil, fmt.Errorf("bedrock: message %d has role system, which Converse messages cannot carry: put the instructions in Request.System", i)
		default:
			return nil, fmt.Errorf("bedrock: message %d has role %q, which Converse does not know", i, m.Role)
		}
	}
	return out, nil
}

// textBlocks maps a user message, which holds only text.
func textBlocks(i int, m model.Message) ([]types.ContentBlock, error) {
	var out []types.ContentBlock
	for _, p := range m.Parts {
		if p.Kind != model.PartText {
			return nil, fmt.Errorf("bedrock: message %d (user) holds a %q part: only assistant messages carry tool calls and only tool messages carry results", i, p.Kind)
		}
		if p.Text != "" {
			out = append(out, &types.ContentBlockMemberText{Value: p.Text})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bedrock: message %d (user) has no text: Converse refuses empty content", i)
	}
	return out, nil
}

// assistantBlocks maps an assistant message: its text and its tool calls.
func assistantBlocks(i int, m model.Message, asText bool) ([]types.ContentBlock, error) {
	var out []types.ContentBlock
	for _, p := range m.Parts {
		switch {
		case p.Kind == model.PartText:
			if p.Text != "" {
				out = append(out, &types.ContentBlockMemberText{Value: p.Text})
			}
		case p.Kind == model.PartToolCall && p.ToolCall != nil:
			tc := p.ToolCall
			if tc.ID == "" || tc.Name == "" {
				return nil, fmt.Errorf("bedrock: message %d: tool call %q (id %q) needs both an id and a name on the wire", i, tc.Name, tc.ID)
			}
			payload := tc.Payload
			if len(payload) == 0 {
				payload = []byte("{}")
			}
			if asText {
				out = append(out, &types.ContentBlockMemberText{Value: toolText("called tool %s (call %s) with", tc.Name, tc.ID, payload)})
				continue
			}
			input, err := toDocument(payload)
			if err != nil {
				return nil, fmt.Errorf("bedrock: message %d: the payload of tool call %q is not JSON: %w", i, tc.ID, err)
			}
			out = append(out, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
				ToolUseId: aws.String(tc.ID), Name: aws.String(tc.Name), Input: input,
			}})
		default:
			return nil, fmt.Errorf("bedrock: message %d (assistant) holds a %q part: assistant messages carry text and tool calls", i, p.Kind)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bedrock: message %d (assistant) has neither text nor tool calls: Converse refuses empty content", i)
	}
	return out, nil
}

// resultBlocks maps a tool message onto toolResult blocks.
func resultBlocks(i int, m model.Message, claude, asText bool) ([]types.ContentBlock, error) {
	out := make([]types.ContentBlock, 0, len(m.Parts))
	for _, p := range m.Parts {
		if p.Kind != model.PartToolResult || p.ToolResult == nil {
			return nil, fmt.Errorf("bedrock: message %d (tool) holds a %q part: tool messages carry only tool results", i, p.Kind)
		}
		r := p.ToolResult
		if r.CallID == "" {
			return nil, fmt.Errorf("bedrock: message %d: the result of %q has no call id, which toolResult.toolUseId requires", i, r.Name)
		}
		text := string(r.Content)
		if text == "" {
			text = "null"
		}
		if asText {
			verb := "result of tool %s (call %s):"
			if r.IsError {
				verb = "failed result of tool %s (call %s):"
			}
			out = append(out, &types.ContentBlockMemberText{Value: toolText(verb, r.Name, r.CallID, []byte(text))})
			continue
		}
		b := types.ToolResultBlock{
			ToolUseId: aws.String(r.CallID),
			Content:   []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: text}},
		}
		if claude {
			b.Status = types.ToolResultStatusSuccess
			if r.IsError {
				b.Status = types.ToolResultStatusError
			}
		}
		out = append(out, &types.ContentBlockMemberToolResult{Value: b})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bedrock: message %d (tool) holds no tool result", i)
	}
	return out, nil
}

// toolText renders a tool call or result as text for a request without
// toolConfig: "[called tool runQuery (call tu_1) with {...}]".
func toolText(format, name, id string, content []byte) string {
	return "[" + fmt.Sprintf(format, name, id) + " " + string(content) + "]"
}

// toToolConfig maps the definitions and the tool choice.
//
// Wire shape (types.ToolConfiguration, types.ToolSpecification):
//
//	{"tools":[{"toolSpec":{"name":"...","description":"...",
//	  "inputSchema":{"json":{...}}}}],
//	 "toolChoice":{"any":{}} | {"tool":{"name":"..."}}}
//
// toolChoice is omitted for ToolChoiceAuto (the API's default). Title,
// Ident, Examples and the search document have no toolSpec field and are
// not sent (package doc: examples).
func toToolConfig(defs []model.ToolDefinition, choice model.ToolChoice) (*types.ToolConfiguration, error) {
	if len(defs) == 0 {
		if choice.Mode != model.ToolChoiceAuto {
			return nil, fmt.Errorf("bedrock: tool choice %q with no tools: advertise a tool or use auto", choice.Mode)
		}
		return nil, nil
	}
	tc := &types.ToolConfiguration{Tools: make([]types.Tool, 0, len(defs))}
	seen := make(map[string]bool, len(defs))
	for _, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("bedrock: tool %q has no wire name", d.Ident)
		}
		if seen[d.Name] {
			return nil, fmt.Errorf("bedrock: two tools are named %q: wire names must be unique", d.Name)
		}
		seen[d.Name] = true
		schema := d.InputSchema
		if len(schema) == 0 {
			schema = []byte(`{"type":"object","properties":{}}`)
		}
		doc, err := toObjectDocument(schema)
		if err != nil {
			return nil, fmt.Errorf("bedrock: the input schema of tool %q is not a JSON object: %w", d.Name, err)
		}
		spec := types.ToolSpecification{Name: aws.String(d.Name), InputSchema: &types.ToolInputSchemaMemberJson{Value: doc}}
		if d.Description != "" {
			spec.Description = aws.String(d.Description)
		}
		tc.Tools = append(tc.Tools, &types.ToolMemberToolSpec{Value: spec})
	}
	switch choice.Mode {
	case model.ToolChoiceAuto:
	case model.ToolChoiceRequired:
		tc.ToolChoice = &types.ToolChoiceMemberAny{}
	case model.ToolChoiceTool:
		if !slices.ContainsFunc(defs, func(d model.ToolDefinition) bool { return d.Name == choice.Name }) {
			return nil, fmt.Errorf("bedrock: tool choice forces %q, which is not among the request's tools", choice.Name)
		}
		tc.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(choice.Name)}}
	default:
		return nil, fmt.Errorf("bedrock: unknown tool choice mode %q: use auto, none, required or tool", choice.Mode)
	}
	return tc, nil
}
