package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// AnswerKind says what a search answered.
type AnswerKind string

// The answers.
const (
	// Found: the search discovered Answer.Tools.
	Found AnswerKind = "found"
	// NoMatch: the search ran (and counted) but found no tool it had not
	// discovered already.
	NoMatch AnswerKind = "no_match"
	// BudgetExhausted: the turn's budget is spent; the search did not run.
	BudgetExhausted AnswerKind = "budget_exhausted"
	// InvalidQuery: the call carried no query; it did not run or count.
	InvalidQuery AnswerKind = "invalid_query"
)

// Answer is one search's outcome.
type Answer struct {
	Kind AnswerKind
	// Query is the query searched ("" for [InvalidQuery]).
	Query string
	// Tools are the definitions discovered ([Found]), best first.
	Tools []model.ToolDefinition
	// JSON is the answer as the model reads it:
	//   - [Found]:           {"query":"…","tools":[{"name":"…","description":"…"}]}
	//   - [NoMatch]:         {"query":"…","tools":[],"message":"No tool matched …, or use one of: a, b"}
	//     with, when some deferred tool's name is near the query,
	//     "closest":["…"] and the message naming them first:
	//     "No tool matched this query. Closest tool names: a, b (search for
	//     one by its exact name). Otherwise try other words, or use one of: c"
	//   - [BudgetExhausted]: {"error":"search-budget-exhausted","budgetCap":3}
	//   - [InvalidQuery]:    {"error":"invalid-query","message":"…"}
	// Adapters put it where the model reads it; an adapter whose search
	// result has no text field still delivers it (see model/openai).
	JSON json.RawMessage
}

// IsError reports whether the answer refuses the search (budget spent or
// no query): adapters mark such results as errors where they can.
func (a Answer) IsError() bool { return a.Kind == BudgetExhausted || a.Kind == InvalidQuery }

// Search answers a search call whose arguments are {"query": "…"}.
func (t *Turn) Search(args json.RawMessage) Answer {
	var a struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(args, &a) != nil {
		a.Query = ""
	}
	return t.SearchQuery(a.Query)
}

// SearchQuery answers a search for query: budget first, then the query,
// then the ranking. A search that runs counts against the turn's budget,
// found or not; what it finds is discovered at once.
func (t *Turn) SearchQuery(query string) Answer {
	query = strings.TrimSpace(query)
	switch {
	case t.used >= t.budget:
		t.exhausted, t.refused = true, true
		// The seed's answer to a search past the budget.
		return Answer{Kind: BudgetExhausted, JSON: json.RawMessage(fmt.Sprintf(`{"error":"search-budget-exhausted","budgetCap":%d}`, t.budget))}
	case query == "":
		return Answer{Kind: InvalidQuery, JSON: encode(map[string]string{
			"error":   "invalid-query",
			"message": fmt.Sprintf(`%s takes {"query": "<what you want to do, or a tool's name>"}`, t.toolName),
		})}
	}
	t.used++
	t.searches++
	found := t.rank(query)
	if len(found) == 0 {
		closest := t.closest(query)
		body := map[string]any{
			"query":   query,
			"tools":   []foundTool{},
			"message": noMatchMessage(closest, t.callable()),
		}
		if len(closest) > 0 {
			body["closest"] = closest
		}
		return Answer{Kind: NoMatch, Query: query, JSON: encode(body)}
	}
	listed := make([]foundTool, len(found))
	for i, d := range found {
		listed[i] = foundTool{Name: d.Name, Description: d.Description}
		if t.loaded[d.Search.Name] {
			continue // found again (call-tool mode): discovered already
		}
		t.loaded[d.Search.Name] = true
		id := d.Ident
		if id == "" {
			id = tools.Ident(d.Search.Name)
		}
		if !slices.Contains(t.found, id) {
			t.found = append(t.found, id)
		}
	}
	return Answer{Kind: Found, Query: query, Tools: found, JSON: encode(map[string]any{"query": query, "tools": listed})}
}

// rank returns the best deferred definitions for query that are not
// loaded yet (in call-tool mode, loaded or not), at most the engine's
// limit. A scored hit under a fraction of
// the best hit — loaded or not — is left out: it would only grow the active
// set, and searching again for a tool already loaded must not load a weak
// neighbour instead. Name-tier hits always count.
func (t *Turn) rank(query string) []model.ToolDefinition {
	if t.index == nil {
		return nil
	}
	limit := t.e.limit
	var out []model.ToolDefinition
	hits := t.index.Search(query, limit+len(t.loaded))
	for k, h := range hits {
		if k > 0 && h.Tier == search.TierScored && h.Score < t.e.minRelative*hits[0].Score {
			break
		}
		i, ok := t.deferred[h.Name]
		if !ok || (t.loaded[h.Name] && !t.callTool) {
			continue
		}
		d := t.defs[i]
		out = append(out, d)
		if len(out) == limit {
			break
		}
	}
	return out
}

// callable returns the sorted wire names the model may call without
// searching: inline tools and deferred tools loaded already.
func (t *Turn) callable() []string {
	names := slices.Clone(t.inline)
	for key, i := range t.deferred {
		if t.loaded[key] {
			names = append(names, t.defs[i].Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// foundTool is one search result as the model reads it.
type foundTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// encode writes v as JSON without escaping <, > and & (a model reads it).
// v is built here from strings and ints, so encoding cannot fail.
func encode(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// maxClosest is how many near tool names a search that found nothing
// suggests.
const maxClosest = 3

// closest returns the wire names of the deferred tools not loaded yet
// whose names are nearest query (search.Index.Suggest), nearest first:
// the tools a model probably meant when its search found nothing.
func (t *Turn) closest(query string) []string {
	if t.index == nil {
		return nil
	}
	var out []string
	for _, s := range t.index.Suggest(query, maxClosest+len(t.loaded)) {
		i, ok := t.deferred[s.Name]
		if !ok || t.loaded[s.Name] {
			continue
		}
		out = append(out, t.defs[i].Name)
		if len(out) == maxClosest {
			break
		}
	}
	return out
}

// noMatchMessage is the message of a search that found nothing: the
// closest tool names first (left out when there are none), then try other
// words, or call one of the tools callable now (left out when there are
// none).
func noMatchMessage(closest, callable []string) string {
	var b strings.Builder
	b.WriteString("No tool matched this query.")
	if len(closest) > 0 {
		b.WriteString(" Closest tool names: " + strings.Join(closest, ", ") + " (search for one by its exact name).")
		b.WriteString(" Otherwise try other words")
	} else {
		b.WriteString(" Try other words")
	}
	if len(callable) > 0 {
		b.WriteString(", or use one of: " + strings.Join(callable, ", "))
	} else {
		b.WriteString(".")
	}
	return b.String()
}
