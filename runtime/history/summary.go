package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/quiver-go/quiver/model"
)

// SummaryPrefix opens the message that replaces summarized turns. The
// message has the user role: every provider accepts a user message right
// after the system prompt, and the marker tells the model the text is a
// recap the runtime wrote, not something the user just said.
const SummaryPrefix = "[Summary of earlier conversation]\n"

// MetaKey is the metadata key (model.Message.Meta) that marks a summary
// message, with the value {"summary":true}. A later compression recognizes
// the mark, folds the old summary into the new one and does not count it as
// a turn. Adapters ignore keys they did not write.
const MetaKey = "quiver.history"

// SummarySystemPrompt is the system prompt of the summarization request.
// The request's only message is a user message holding SummaryInstruction
// followed by the summarized messages rendered as text between
// <conversation> tags (see RenderTranscript).
const SummarySystemPrompt = `You compress the earlier part of a conversation between a user and an AI assistant that uses tools, so that the assistant can continue the conversation from your summary alone.
Write a faithful, self-contained summary:
- the user's goals, requests, constraints and preferences;
- what the assistant did: the tools it called, with their important arguments, and what they returned;
- facts learned along the way, with names, identifiers, numbers, dates and quoted values copied exactly;
- decisions taken, what is finished and what is still open or pending.
If the conversation starts with an earlier summary, keep its content in yours.
Do not invent anything, do not give advice, do not address the user. Write in the conversation's language, in plain prose or short lists. Answer with the summary only.`

// SummaryInstruction opens the user message of the summarization request.
const SummaryInstruction = "Summarize this conversation:"

// SummaryMaxTokens caps the output of the summarization request. A summary
// cut at the cap is an error rather than a silently incomplete record.
const SummaryMaxTokens = 4096

// errEmptySummary is returned when the summarizer answers with no text.
var errEmptySummary = errors.New("the history model returned an empty summary")

// IsSummary reports whether m is a summary written by compression.
func IsSummary(m model.Message) bool {
	raw, ok := m.Meta[MetaKey]
	if !ok {
		return false
	}
	var v struct {
		Summary bool `json:"summary"`
	}
	return json.Unmarshal(raw, &v) == nil && v.Summary
}

// summarize asks summarizer for a summary of msgs and returns the message
// that replaces them.
func summarize(ctx context.Context, summarizer model.Client, msgs []model.Message) (model.Message, error) {
	req := &model.Request{
		Class:     model.ModelClassSmall,
		System:    SummarySystemPrompt,
		MaxTokens: SummaryMaxTokens,
		Messages: []model.Message{model.UserMessage(
			SummaryInstruction + "\n\n<conversation>\n" + RenderTranscript(msgs) + "</conversation>",
		)},
	}
	resp, err := summarizer.Complete(ctx, req)
	if err != nil {
		return model.Message{}, err
	}
	if resp == nil {
		return model.Message{}, errEmptySummary
	}
	if resp.StopReason == model.StopMaxTokens {
		return model.Message{}, fmt.Errorf("the summary exceeded %d output tokens", SummaryMaxTokens)
	}
	text := strings.TrimSpace(resp.Text())
	if text == "" {
		return model.Message{}, errEmptySummary
	}
	m := model.UserMessage(SummaryPrefix + text)
	m.Meta = map[string]json.RawMessage{MetaKey: json.RawMessage(`{"summary":true}`)}
	return m, nil
}

// RenderTranscript renders msgs as the plain text the summarizer reads: one
// block per message, headed by its role in brackets, with tool calls and
// results on their own lines under the wire name the model used:
//
//	[user]
//	Find the report
//
//	[assistant]
//	[tool call search_docs] {"query":"report"}
//
//	[tool]
//	[tool result search_docs] {"hits":1}
//
// A summary left by an earlier compression is rendered as its text.
// Metadata is not rendered.
func RenderTranscript(msgs []model.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[%s]\n", m.Role)
		for _, p := range m.Parts {
			switch {
			case p.Kind == model.PartText:
				b.WriteString(strings.TrimRight(p.Text, "\n"))
			case p.Kind == model.PartToolCall && p.ToolCall != nil:
				fmt.Fprintf(&b, "[tool call %s] %s", p.ToolCall.Name, compact(p.ToolCall.Payload))
			case p.Kind == model.PartToolResult && p.ToolResult != nil:
				what := "tool result"
				if p.ToolResult.IsError {
					what = "tool error"
				}
				fmt.Fprintf(&b, "[%s %s] %s", what, p.ToolResult.Name, compact(p.ToolResult.Content))
			default:
				continue
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// compact returns raw without insignificant whitespace, or as given when it
// is not valid JSON.
func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
