package portable

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// searchTool is the function the model calls to search.
func (s *session) searchTool() model.ToolDefinition {
	return model.ToolDefinition{
		Name:        s.name,
		Title:       "Search tools",
		Description: "Find tools you do not see yet. Describe what you want to do, or name the tool; the best matches become callable on your next step.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What you want to do, or the name of a tool."}},"required":["query"]}`),
	}
}

// budgetExhausted is the answer to a search past the per-turn budget (seed
// 004, verbatim).
func budgetExhausted(cap int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"error":"search-budget-exhausted","budgetCap":%d}`, cap))
}

// foundTool is one search result as the model reads it.
type foundTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// answer runs the searches of one response and returns the tool message
// holding their results, with the discovery record. Matches join the active
// set here, inside the search execution, so the very next request carries
// them.
func (s *session) answer(calls []model.ToolCall) model.Message {
	msg := model.Message{Role: model.RoleTool}
	var disc model.Discovery
	for _, call := range calls {
		var content json.RawMessage
		var args struct {
			Query string `json:"query"`
		}
		switch {
		case s.used >= s.budget:
			content = budgetExhausted(s.budget)
			disc.Exhausted = true
			s.exhausted = true
		case json.Unmarshal(call.Payload, &args) != nil || strings.TrimSpace(args.Query) == "":
			content = encode(map[string]string{"error": "invalid-arguments", "message": s.name + ` takes {"query": "<what you want to do>"}`})
		default:
			s.used++
			disc.Searches++
			content = s.find(args.Query, &disc)
		}
		msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: call.ID, Name: call.Name, Content: content}})
	}
	if disc.Searches > 0 || disc.Exhausted {
		msg.SetDiscovery(disc)
	}
	return msg
}

// find ranks the deferred tools for query, activates the matches and
// records them.
func (s *session) find(query string, disc *model.Discovery) json.RawMessage {
	found := []foundTool{}
	hits := s.index.Search(query, s.c.limit)
	for i, h := range hits {
		// Weak matches stay undiscovered: a hit scoring under a fraction
		// of the best one would only grow the active set. Name matches
		// always count.
		if i > 0 && h.Tier == search.TierScored && h.Score < s.c.minRelative*hits[0].Score {
			break
		}
		id := tools.Ident(h.Name)
		d, ok := s.deferred[id]
		if !ok {
			continue
		}
		s.activate(id)
		if !slices.Contains(disc.Tools, id) {
			disc.Tools = append(disc.Tools, id)
		}
		found = append(found, foundTool{Name: d.Name, Description: d.Description})
	}
	out := map[string]any{"query": query, "tools": found}
	if len(found) == 0 {
		var names []string
		for _, a := range s.active {
			names = append(names, a.Name)
		}
		slices.Sort(names)
		out["hint"] = "No tool matched. Try other words, or use one of: " + strings.Join(names, ", ")
	}
	return encode(out)
}

// searcher ranks documents.
type searcher interface {
	Search(query string, limit int) []search.Hit
}

// indexCache keeps the index of the last catalog searched: consecutive
// requests of an agent carry the same deferred tools.
type indexCache struct {
	mu    sync.Mutex
	docs  []search.Document
	index *search.Index
}

// get returns an index of the definitions' documents, reusing the cached
// one when exactly the same documents were indexed last.
func (c *indexCache) get(defs []model.ToolDefinition) (*search.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index != nil && len(c.docs) == len(defs) {
		same := true
		for i, d := range defs {
			if !c.docs[i].Equal(*d.Search) {
				same = false
				break
			}
		}
		if same {
			return c.index, nil
		}
	}
	ix, err := search.NewIndex(search.DefaultParams())
	if err != nil {
		return nil, fmt.Errorf("portable: %w", err)
	}
	docs := make([]search.Document, len(defs))
	for i, d := range defs {
		docs[i] = d.Search.Clone()
		if docs[i].Name != string(d.Ident) {
			return nil, fmt.Errorf("portable: the search document of %q is keyed %q, not by its ident %q", d.Name, docs[i].Name, d.Ident)
		}
		if err := ix.Add(docs[i]); err != nil {
			return nil, fmt.Errorf("portable: deferred tool %q: %w", d.Name, err)
		}
	}
	c.docs, c.index = docs, ix
	return ix, nil
}
