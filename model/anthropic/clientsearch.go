package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
)

// searcher answers the client-side search tool (SearchClient) for one
// invocation: it ranks the deferred tools' search documents with package
// search and answers each call with a tool_result holding one tool_reference
// per match (Anthropic docs, "Tool search tool", custom tool search
// implementation: {"type":"tool_result","tool_use_id",
// "content":[{"type":"tool_reference","tool_name"}]}; SDK v2.15.0
// message.go: ToolResultBlockParamContentUnion.OfToolReference). Every
// referenced tool is in the request with defer_loading, so the provider
// expands the reference into its definition.
type searcher struct {
	index *search.Index
	// wire maps a search document's name to its tool's wire name.
	wire  map[string]string
	limit int
	// budget is the per-turn cap; used counts the searches answered this
	// turn, earlier invocations included.
	budget int
	used   int
	// refused counts the rounds in which a call was refused for budget.
	refused int
}

// newSearcher indexes the deferred definitions of ts.
func newSearcher(ts *toolSet, req *model.Request, limit int) (*searcher, error) {
	ix, err := search.NewIndex(search.DefaultParams())
	if err != nil {
		return nil, fmt.Errorf("anthropic: client-side search: %w", err)
	}
	s := &searcher{
		index:  ix,
		wire:   make(map[string]string, len(ts.deferred)),
		limit:  limit,
		budget: req.Search.SearchCap(),
		used:   model.SearchesThisTurn(req.Messages),
	}
	for _, d := range ts.deferred {
		if d.Search == nil {
			return nil, fmt.Errorf("anthropic: deferred tool %q has no search document; the client-side search ranks deferred tools by their documents", d.Name)
		}
		if err := ix.Add(*d.Search); err != nil {
			return nil, fmt.Errorf("anthropic: deferred tool %q: %w", d.Name, err)
		}
		s.wire[d.Search.Name] = d.Name
	}
	return s, nil
}

// budgetExhausted is the answer to a search past the per-turn cap, the
// JSON object the portable search mode answers too.
func budgetExhausted(budget int) string {
	return fmt.Sprintf(`{"error":"search-budget-exhausted","budgetCap":%d}`, budget)
}

// answer answers the search calls of r: r's Record gets the tool_result
// blocks as sent and the fingerprints of the referenced definitions, r's
// found tools the tools referenced; the returned discovery counts the
// searches answered and says whether the budget ran out.
func (s *searcher) answer(r *reply, ts *toolSet) (model.Discovery, error) {
	var d model.Discovery
	refused := false
	for _, c := range r.searches {
		tr := sdk.ToolResultBlockParam{ToolUseID: c.id}
		var query struct {
			Query string `json:"query"`
		}
		switch {
		case s.used >= s.budget:
			tr.Content = textContent(budgetExhausted(s.budget))
			tr.IsError = sdk.Bool(true)
			d.Exhausted, refused = true, true
		case json.Unmarshal(c.input, &query) != nil || strings.TrimSpace(query.Query) == "":
			tr.Content = textContent(fmt.Sprintf(`Call %s with {"query": "<words describing the tool you need>"}.`, ts.searchTool))
			tr.IsError = sdk.Bool(true)
		default:
			s.used++
			d.Searches++
			hits := s.index.Search(query.Query, s.limit)
			if len(hits) == 0 {
				tr.Content = textContent("No tool matches this query. Try other words, or use the tools already loaded.")
				break
			}
			for _, h := range hits {
				wire := s.wire[h.Name]
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfToolReference: &sdk.ToolReferenceBlockParam{ToolName: wire}})
				r.reference(wire, ts)
			}
		}
		raw, err := json.Marshal(sdk.ContentBlockParamUnion{OfToolResult: &tr})
		if err != nil {
			return model.Discovery{}, fmt.Errorf("anthropic: encode search result: %w", err)
		}
		r.rec.Results = append(r.rec.Results, raw)
	}
	if refused {
		s.refused++
	}
	return d, nil
}

// textContent is a tool_result content of one text block.
func textContent(text string) []sdk.ToolResultBlockParamContentUnion {
	return []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: text}}}
}
