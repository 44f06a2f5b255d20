package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
)

// answerSearches answers the client-side search calls of r (SearchClient)
// through the invocation's discovery turn (package discovery: budget,
// query, ranking with the weak-hit cut) and renders each answer as the
// tool_result the call gets:
//
//   - Found: one tool_reference block per tool found (Anthropic docs, "Tool
//     search tool", custom tool search implementation:
//     {"type":"tool_result","tool_use_id","content":[{"type":"tool_reference",
//     "tool_name"}]}; SDK v2.15.0 message.go:
//     ToolResultBlockParamContentUnion.OfToolReference). Every referenced
//     tool is in the request with defer_loading, so the provider expands
//     the reference into its definition.
//   - NoMatch, BudgetExhausted, InvalidQuery: one text block holding the
//     answer's JSON (e.g. {"error":"search-budget-exhausted","budgetCap":3}),
//     "is_error": true for the refusals (Answer.IsError).
//
// r's Record gets the tool_result blocks as sent and the fingerprints of
// the referenced definitions, and r.rounds each search as a stream reports
// it (model.SearchRound: the query, the wire names found). The returned discovery is this round's part
// of the invocation's record (Turn.TakeRecord): the tools found, the
// searches answered, and whether one was refused for budget.
func (inv *invocation) answerSearches(r *reply) (model.Discovery, error) {
	for _, c := range r.searches {
		a := inv.turn.Search(c.input)
		tr := sdk.ToolResultBlockParam{ToolUseID: c.id}
		round := model.SearchRound{Query: a.Query}
		if a.Kind == discovery.Found {
			for _, d := range a.Tools {
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfToolReference: &sdk.ToolReferenceBlockParam{ToolName: d.Name}})
				r.reference(d.Name, inv.tools)
				round.Found = append(round.Found, d.Name)
			}
		} else {
			tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: string(a.JSON)}}}
			if a.IsError() {
				tr.IsError = sdk.Bool(true)
			}
		}
		raw, err := json.Marshal(sdk.ContentBlockParamUnion{OfToolResult: &tr})
		if err != nil {
			return model.Discovery{}, fmt.Errorf("anthropic: encode search result: %w", err)
		}
		r.rec.Results = append(r.rec.Results, raw)
		r.rounds = append(r.rounds, round)
	}
	d, _ := inv.turn.TakeRecord()
	return d, nil
}
