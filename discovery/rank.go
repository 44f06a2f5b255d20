package discovery

import (
	"fmt"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
)

// Rank ranks defs for query as a search does — the same index, name tiers
// and weak-hit cut, at most the engine's limit — without a turn: no budget,
// nothing discovered before. It serves searches over a whole catalog that
// no model turn owns, such as a registry's. Every definition needs a search
// document; defs is not modified, and the result holds copies of its
// elements, best first. An empty query finds nothing.
func (e *Engine) Rank(defs []model.ToolDefinition, query string) ([]model.ToolDefinition, error) {
	query = strings.TrimSpace(query)
	if query == "" || len(defs) == 0 {
		return nil, nil
	}
	docs := make([]*model.ToolDefinition, len(defs))
	byName := make(map[string]int, len(defs))
	for i := range defs {
		d := &defs[i]
		if d.Search == nil {
			return nil, fmt.Errorf("discovery: tool %q has no search document", d.Name)
		}
		if _, dup := byName[d.Search.Name]; dup {
			return nil, fmt.Errorf("discovery: tools share the search document name %q", d.Search.Name)
		}
		byName[d.Search.Name] = i
		docs[i] = d
	}
	ix, err := e.index(docs)
	if err != nil {
		return nil, err
	}
	var out []model.ToolDefinition
	hits := ix.Search(query, e.limit)
	for k, h := range hits {
		if k > 0 && h.Tier == search.TierScored && h.Score < e.minRelative*hits[0].Score {
			break
		}
		out = append(out, defs[byName[h.Name]])
	}
	return out, nil
}
