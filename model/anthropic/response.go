package anthropic

import (
	"encoding/json"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// reply is one response of the Messages API, mapped.
type reply struct {
	// msg is the assistant message to append: text and ordinary tool_use
	// blocks as parts, every other block in its Record.
	msg model.Message
	rec Record
	// calls are the ordinary tool calls, in order.
	calls []model.ToolCall
	// searches are the client-side search tool's calls, in order.
	searches []searchCall
	// found are the tools the hosted searches referenced.
	found []tools.Ident
	// rounds are the client-side searches answered (answerSearches), for
	// a stream's ChunkSearch.
	rounds []model.SearchRound
	stop   sdk.StopReason
	usage  model.Usage
}

// searchCall is one call of the client-side search tool.
type searchCall struct {
	id    string
	input json.RawMessage
}

// readReply maps a response (SDK v2.15.0 message.go: Message.Content
// []ContentBlockUnion, each with RawJSON). text blocks become text parts and
// tool_use blocks ordinary calls — except calls of the client-side search
// tool (clientTool, "" when none), kept with every other block verbatim in
// the Record at their index. A tool_search_tool_result (Anthropic docs,
// "Tool search tool", response format: {"type":"tool_search_tool_result",
// "tool_use_id", "content":{"type":"tool_search_tool_search_result",
// "tool_references":[{"type":"tool_reference","tool_name"}]}}) names the
// tools the hosted search loaded; its error variant
// ({"type":"tool_search_tool_result_error","error_code","error_message"})
// fails with a *SearchError.
func readReply(m *sdk.Message, ts *toolSet, clientTool string) (*reply, error) {
	r := &reply{msg: model.Message{Role: model.RoleAssistant}, stop: m.StopReason, usage: usageOf(m.Usage)}
	for i, b := range m.Content {
		switch b.Type {
		case "text":
			r.msg.Parts = append(r.msg.Parts, model.Text(b.Text))
			continue
		case "tool_use":
			if clientTool == "" || b.Name != clientTool {
				c := model.ToolCall{ID: b.ID, Name: b.Name, Payload: slices.Clone(b.Input)}
				r.calls = append(r.calls, c)
				r.msg.Parts = append(r.msg.Parts, model.Part{Kind: model.PartToolCall, ToolCall: &c})
				continue
			}
			r.searches = append(r.searches, searchCall{id: b.ID, input: slices.Clone(b.Input)})
		case "tool_search_tool_result":
			res := b.AsToolSearchToolResult()
			if res.Content.Type == "tool_search_tool_result_error" {
				e := res.Content.AsResponseToolSearchToolResultError()
				return nil, &SearchError{Code: SearchErrorCode(e.ErrorCode), Message: e.ErrorMessage, ToolUseID: res.ToolUseID}
			}
			for _, ref := range res.Content.AsResponseToolSearchToolSearchResultBlock().ToolReferences {
				r.reference(ref.ToolName, ts)
			}
		}
		r.rec.Blocks = append(r.rec.Blocks, PlacedBlock{At: i, Block: json.RawMessage(b.RawJSON())})
	}
	return r, nil
}

// reference records that a search loaded the tool named wire: its ident
// joins the discovered tools and its fingerprint the record. A name the
// request does not define is left out (nothing is invented).
func (r *reply) reference(wire string, ts *toolSet) {
	d, ok := ts.byWire[wire]
	if !ok {
		return
	}
	if r.rec.Definitions == nil {
		r.rec.Definitions = make(map[string]string)
	}
	r.rec.Definitions[wire] = ts.prints[wire]
	if d.Ident != "" && !slices.Contains(r.found, d.Ident) {
		r.found = append(r.found, d.Ident)
	}
}

// usageOf maps the SDK's usage (input_tokens, output_tokens,
// cache_read_input_tokens, cache_creation_input_tokens).
func usageOf(u sdk.Usage) model.Usage {
	return model.Usage{
		InputTokens:      int(u.InputTokens),
		OutputTokens:     int(u.OutputTokens),
		CacheReadTokens:  int(u.CacheReadInputTokens),
		CacheWriteTokens: int(u.CacheCreationInputTokens),
	}
}

// stopReason maps the provider's stop reason; values the model package
// does not name (stop_sequence, refusal, …) pass through as they are.
func stopReason(s sdk.StopReason) model.StopReason {
	switch s {
	case sdk.StopReasonEndTurn:
		return model.StopEndTurn
	case sdk.StopReasonToolUse:
		return model.StopToolUse
	case sdk.StopReasonMaxTokens:
		return model.StopMaxTokens
	}
	return model.StopReason(s)
}
