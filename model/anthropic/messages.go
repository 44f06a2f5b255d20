package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/quiver-go/quiver/model"
)

// systemBlocks returns the system parameter — the request's System, then the
// text of the transcript's leading system messages, one text block each
// (SDK v2.15.0 message.go: MessageNewParams.System []TextBlockParam) — and
// how many leading messages it consumed.
func systemBlocks(req *model.Request) ([]sdk.TextBlockParam, int) {
	var blocks []sdk.TextBlockParam
	if req.System != "" {
		blocks = append(blocks, sdk.TextBlockParam{Text: req.System})
	}
	lead := 0
	for lead < len(req.Messages) && req.Messages[lead].Role == model.RoleSystem {
		if t := req.Messages[lead].TextContent(); t != "" {
			blocks = append(blocks, sdk.TextBlockParam{Text: t})
		}
		lead++
	}
	return blocks, lead
}

// turn is one message of the Messages API being assembled. A user turn
// keeps its tool_result blocks apart: they open its content.
type turn struct {
	role    model.Role
	results []sdk.ContentBlockParamUnion
	blocks  []sdk.ContentBlockParamUnion
}

// renderMessages maps a transcript (without its leading system messages)
// to the Messages API's messages (Anthropic docs, "How to implement tool
// use"): user text; assistant text and tool_use blocks, with the blocks of
// the adapter's Record put back at their places; tool results as
// tool_result blocks of a user message. Consecutive user-side messages —
// tool results and the user text that follows them — form one user message,
// tool results first, as the API requires after an assistant tool_use.
// A Record's client-side search results open the user message after their
// assistant message. A system message inside the conversation (the
// runtime's <system-reminder> notes) becomes a text block of the user
// message, which every model accepts; mid-conversation system messages are
// not accepted by every model.
func renderMessages(msgs []model.Message) ([]sdk.MessageParam, error) {
	var turns []turn
	open := func(role model.Role) *turn {
		if n := len(turns); n > 0 && turns[n-1].role == role {
			return &turns[n-1]
		}
		turns = append(turns, turn{role: role})
		return &turns[len(turns)-1]
	}
	for i, m := range msgs {
		switch m.Role {
		case model.RoleAssistant:
			rec, _, err := RecordOf(m)
			if err != nil {
				return nil, err
			}
			blocks, err := assistantBlocks(m, rec)
			if err != nil {
				return nil, fmt.Errorf("anthropic: message %d: %w", i, err)
			}
			if len(blocks) > 0 {
				t := open(model.RoleAssistant)
				t.blocks = append(t.blocks, blocks...)
			}
			if len(rec.Results) > 0 {
				t := open(model.RoleUser)
				for _, raw := range rec.Results {
					t.results = append(t.results, verbatim(raw))
				}
			}
		case model.RoleUser, model.RoleTool:
			results, blocks, err := userBlocks(m)
			if err != nil {
				return nil, fmt.Errorf("anthropic: message %d: %w", i, err)
			}
			if len(results) > 0 || len(blocks) > 0 {
				t := open(model.RoleUser)
				t.results = append(t.results, results...)
				t.blocks = append(t.blocks, blocks...)
			}
		case model.RoleSystem:
			if text := m.TextContent(); text != "" {
				t := open(model.RoleUser)
				t.blocks = append(t.blocks, sdk.NewTextBlock(text))
			}
		default:
			return nil, fmt.Errorf("anthropic: message %d: unknown role %q", i, m.Role)
		}
	}
	out := make([]sdk.MessageParam, 0, len(turns))
	for _, t := range turns {
		switch t.role {
		case model.RoleAssistant:
			out = append(out, sdk.NewAssistantMessage(t.blocks...))
		case model.RoleUser:
			// Anthropic docs, "Handle tool calls": in the user message
			// containing tool results, tool_result blocks must come first;
			// any text comes after all of them.
			out = append(out, sdk.NewUserMessage(append(t.results, t.blocks...)...))
		}
	}
	return out, nil
}

// assistantBlocks rebuilds an assistant message's content: text and
// tool_use blocks from its parts, with the record's blocks put back at
// their indices. Parts and record blocks interleave by the response's
// content index, so a part that is not replayed (an empty text block)
// still holds its place.
func assistantBlocks(m model.Message, rec Record) ([]sdk.ContentBlockParamUnion, error) {
	placed := slices.Clone(rec.Blocks)
	slices.SortStableFunc(placed, func(a, b PlacedBlock) int { return a.At - b.At })
	var blocks []sdk.ContentBlockParamUnion
	at := 0 // the response content index of the next part
	putPlaced := func() {
		for len(placed) > 0 && placed[0].At <= at {
			blocks = append(blocks, verbatim(placed[0].Block))
			placed = placed[1:]
			at++
		}
	}
	for _, p := range m.Parts {
		putPlaced()
		at++
		switch {
		case p.Kind == model.PartText:
			if p.Text != "" { // the API refuses empty text blocks
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: p.Text}})
			}
		case p.Kind == model.PartToolCall && p.ToolCall != nil:
			blocks = append(blocks, toolUseBlock(p.ToolCall))
		default:
			return nil, fmt.Errorf("an assistant message cannot hold a %s part", p.Kind)
		}
	}
	for _, pb := range placed {
		blocks = append(blocks, verbatim(pb.Block))
	}
	return blocks, nil
}

// toolUseBlock is an ordinary call as a tool_use block (SDK v2.15.0
// message.go: ToolUseBlockParam {type, id, name, input}).
func toolUseBlock(c *model.ToolCall) sdk.ContentBlockParamUnion {
	input := json.RawMessage(c.Payload)
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	return sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: c.ID, Name: c.Name, Input: input}}
}

// userBlocks maps a user or tool message: its tool_result blocks and its
// text blocks, each in order.
func userBlocks(m model.Message) (results, texts []sdk.ContentBlockParamUnion, err error) {
	for _, p := range m.Parts {
		switch {
		case p.Kind == model.PartText:
			if p.Text != "" {
				texts = append(texts, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: p.Text}})
			}
		case p.Kind == model.PartToolResult && p.ToolResult != nil:
			results = append(results, toolResultBlock(p.ToolResult))
		default:
			return nil, nil, fmt.Errorf("a %s message cannot hold a %s part", m.Role, p.Kind)
		}
	}
	return results, texts, nil
}

// toolResultBlock is a tool result as a tool_result block (SDK v2.15.0
// message.go: ToolResultBlockParam {type, tool_use_id, content, is_error}).
// The content is one text block: the result's JSON, or the string itself
// when the result is a JSON string.
func toolResultBlock(r *model.ToolResult) sdk.ContentBlockParamUnion {
	tr := &sdk.ToolResultBlockParam{ToolUseID: r.CallID}
	if text := resultText(r.Content); text != "" {
		tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: text}}}
	}
	if r.IsError {
		tr.IsError = sdk.Bool(true)
	}
	return sdk.ContentBlockParamUnion{OfToolResult: tr}
}

// resultText returns the text a model reads for a result's JSON.
func resultText(content json.RawMessage) string {
	trimmed := bytes.TrimSpace(content)
	var s string
	if len(trimmed) > 0 && trimmed[0] == '"' && json.Unmarshal(trimmed, &s) == nil {
		return s
	}
	return string(trimmed)
}

// verbatim is a content block sent exactly as stored.
func verbatim(raw json.RawMessage) sdk.ContentBlockParamUnion {
	return param.Override[sdk.ContentBlockParamUnion](raw)
}
