package anthropic

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/model"
)

// hostedRound is the search a finished tool_search_tool_result block
// (res) reports, for a stream's ChunkSearch: the query of the
// server_tool_use among blocks that it answers, and the tools it
// referenced that the request defines (a reference to any other name makes
// nothing callable; readReply leaves it out of the record alike). A failed
// search reports none (ok false): readReply fails the round with its
// *SearchError once the message ends.
func hostedRound(blocks []sdk.ContentBlockUnion, res sdk.ContentBlockUnion, ts *toolSet) (round model.SearchRound, ok bool) {
	r := res.AsToolSearchToolResult()
	if r.Content.Type == "tool_search_tool_result_error" {
		return model.SearchRound{}, false
	}
	for _, b := range blocks {
		if b.Type == "server_tool_use" && b.ID == r.ToolUseID {
			round.Query = searchQuery(b.Input)
			break
		}
	}
	for _, ref := range r.Content.AsResponseToolSearchToolSearchResultBlock().ToolReferences {
		if _, defined := ts.byWire[ref.ToolName]; defined {
			round.Found = append(round.Found, ref.ToolName)
		}
	}
	return round, true
}

// searchQuery is what a hosted search's input searched for (Anthropic
// docs, "Tool search tool": {"query": "…"}, a regular expression for the
// regex variant); "" when the input holds none.
func searchQuery(input json.RawMessage) string {
	var in struct {
		Query   string `json:"query"`
		Pattern string `json:"pattern"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	if in.Query != "" {
		return in.Query
	}
	return in.Pattern
}
