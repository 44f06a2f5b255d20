package advertised

import (
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// Names of the shapes CompareFor reports.
const (
	// ShapeAllInline advertises every tool inline.
	ShapeAllInline = "all-inline"
	// ShapeSearchOnly defers every tool: what the model sees up front is
	// the search tool only.
	ShapeSearchOnly = "search-only"
	// ShapeSplit advertises the chosen tools inline and defers the rest
	// behind the search tool.
	ShapeSplit = "split"
)

// Shape is the token cost of one way to advertise a catalog.
type Shape struct {
	// Name is ShapeAllInline, ShapeSearchOnly or ShapeSplit.
	Name string `json:"name"`
	// Inline and Deferred count the tools advertised up front and those
	// left behind the search tool.
	Inline   int `json:"inline"`
	Deferred int `json:"deferred"`
	// Tokens is the o200k_base count of what the request loads into the
	// model's context before any search (see Tokens): for ProviderOpenAI
	// the whole tools array, for ProviderAnthropic the array without the
	// deferred definitions (an approximation).
	Tokens int `json:"tokens"`
}

// CompareFor measures the tools array p's adapter sends for a catalog
// file's tools (see Definitions) advertised all inline, search only and,
// when split is not nil, with the tools for which split reports true
// (called with the file's names) inline and the others deferred. With
// split nil the result has two shapes, otherwise three, in that order. An
// unknown provider is an error.
//
// Deferring tools usually costs less, but not always: deferring a single
// tool whose definition is shorter than the search tool's costs more.
func CompareFor(p Provider, list []catalogfile.Tool, split func(name string) bool, o Options) ([]Shape, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	type plan struct {
		name   string
		inline func(string) bool
	}
	plans := []plan{
		{ShapeAllInline, func(string) bool { return true }},
		{ShapeSearchOnly, func(string) bool { return false }},
	}
	if split != nil {
		plans = append(plans, plan{ShapeSplit, split})
	}
	out := make([]Shape, 0, len(plans))
	for _, pl := range plans {
		defs, err := Definitions(list, pl.inline)
		if err != nil {
			return nil, err
		}
		n, err := Tokens(p, defs, o)
		if err != nil {
			return nil, err
		}
		inline := 0
		for _, d := range defs {
			if !d.Deferred {
				inline++
			}
		}
		out = append(out, Shape{Name: pl.name, Inline: inline, Deferred: len(defs) - inline, Tokens: n})
	}
	return out, nil
}
