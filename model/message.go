package model

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/quiver-go/quiver/tools"
)

// Role says who wrote a message.
type Role string

// The message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool messages carry tool results back to the model.
	RoleTool Role = "tool"
)

// Message is one entry of a conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
	// Meta is provider metadata (search rounds, discovered tools, native
	// blocks) keyed by the adapter that wrote it. Storage and history
	// compaction keep it verbatim; adapters read their own keys back on
	// replay.
	Meta map[string]json.RawMessage `json:"meta,omitempty"`
}

// PartKind says what a [Part] holds.
type PartKind string

// The part kinds.
const (
	PartText       PartKind = "text"
	PartToolCall   PartKind = "tool_call"
	PartToolResult PartKind = "tool_result"
)

// Part is one piece of a message: text, a tool call (assistant) or a tool
// result (tool role). Exactly the field matching [Part.Kind] is set.
type Part struct {
	Kind       PartKind    `json:"kind"`
	Text       string      `json:"text,omitempty"`
	ToolCall   *ToolCall   `json:"tool_call,omitempty"`
	ToolResult *ToolResult `json:"tool_result,omitempty"`
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	// ID is the provider's call id, echoed by the result.
	ID string `json:"id"`
	// Name is the wire name the model used.
	Name string `json:"name"`
	// Ident is the tool the runtime resolved the call to; empty when the
	// name matched no tool of the catalog.
	Ident tools.Ident `json:"ident,omitempty"`
	// Payload is the arguments as the model sent them (JSON).
	Payload json.RawMessage `json:"payload"`
}

// ToolResult is the outcome of one tool call as the model sees it.
type ToolResult struct {
	// CallID is the [ToolCall.ID] answered.
	CallID string `json:"call_id"`
	// Name is the wire name of the call.
	Name string `json:"name"`
	// Content is the JSON the model reads.
	Content json.RawMessage `json:"content"`
	// IsError marks a failed call.
	IsError bool `json:"is_error,omitempty"`
}

// Text returns a text part.
func Text(s string) Part { return Part{Kind: PartText, Text: s} }

// UserMessage returns a user message holding text.
func UserMessage(text string) Message {
	return Message{Role: RoleUser, Parts: []Part{Text(text)}}
}

// SystemMessage returns a system message holding text.
func SystemMessage(text string) Message {
	return Message{Role: RoleSystem, Parts: []Part{Text(text)}}
}

// AssistantMessage returns an assistant message holding text.
func AssistantMessage(text string) Message {
	return Message{Role: RoleAssistant, Parts: []Part{Text(text)}}
}

// TextContent returns the concatenated text parts of m.
func (m Message) TextContent() string {
	var s string
	for _, p := range m.Parts {
		if p.Kind == PartText {
			s += p.Text
		}
	}
	return s
}

// ToolCalls returns the tool calls of m, in order.
func (m Message) ToolCalls() []ToolCall {
	var out []ToolCall
	for _, p := range m.Parts {
		if p.Kind == PartToolCall && p.ToolCall != nil {
			out = append(out, *p.ToolCall)
		}
	}
	return out
}

// Clone returns a deep copy of m.
func (m Message) Clone() Message {
	c := m
	c.Parts = make([]Part, len(m.Parts))
	for i, p := range m.Parts {
		c.Parts[i] = p
		if p.ToolCall != nil {
			tc := *p.ToolCall
			tc.Payload = slices.Clone(tc.Payload)
			c.Parts[i].ToolCall = &tc
		}
		if p.ToolResult != nil {
			tr := *p.ToolResult
			tr.Content = slices.Clone(tr.Content)
			c.Parts[i].ToolResult = &tr
		}
	}
	if m.Meta != nil {
		c.Meta = make(map[string]json.RawMessage, len(m.Meta))
		for k, v := range maps.All(m.Meta) {
			c.Meta[k] = slices.Clone(v)
		}
	}
	return c
}

// CloneMessages returns deep copies of msgs.
func CloneMessages(msgs []Message) []Message {
	if msgs == nil {
		return nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Clone()
	}
	return out
}
