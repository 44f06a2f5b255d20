package tokencount

import (
	"fmt"

	"github.com/tiktoken-go/tokenizer"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

// Encoding names the vocabulary Count uses, that of OpenAI's GPT-4o, GPT-4.1,
// GPT-5 and o-series models.
const Encoding = "o200k_base"

// Count returns the number of o200k_base tokens in data, read as UTF-8 text.
func Count(data []byte) (int, error) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return 0, fmt.Errorf("tokencount: %s: %w", Encoding, err)
	}
	n, err := codec.Count(string(data))
	if err != nil {
		return 0, fmt.Errorf("tokencount: %w", err)
	}
	return n, nil
}

// Names of the shapes Compare reports.
const (
	// ShapeAllInline advertises every tool as a function.
	ShapeAllInline = "all-inline"
	// ShapeSearchOnly defers every tool: the request carries only the
	// search tool.
	ShapeSearchOnly = "search-only"
	// ShapeSplit advertises the chosen tools inline and defers the rest
	// behind the search tool.
	ShapeSplit = "split"
)

// Shape is the token cost of one way to advertise a catalog.
type Shape struct {
	// Name is ShapeAllInline, ShapeSearchOnly or ShapeSplit.
	Name string `json:"name"`
	// Inline and Deferred count the tools advertised as functions and
	// those left behind the search tool.
	Inline   int `json:"inline"`
	Deferred int `json:"deferred"`
	// Tokens is the o200k_base count of the request's tools array.
	Tokens int `json:"tokens"`
}

// Compare measures the OpenAI Responses tools array of tools advertised all
// inline, search only and, when split is not nil, with the tools for which
// split reports true inline and the others deferred. With split nil the
// result has two shapes, otherwise three, in that order.
//
// Deferring tools usually costs less, but not always: deferring a single
// tool whose definition is shorter than the search tool's costs more.
func Compare(tools []catalogfile.Tool, split func(name string) bool) ([]Shape, error) {
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
	for _, p := range plans {
		data, err := OpenAIResponsesTools(tools, p.inline)
		if err != nil {
			return nil, err
		}
		n, err := Count(data)
		if err != nil {
			return nil, err
		}
		inline := 0
		for _, t := range tools {
			if p.inline(t.Name) {
				inline++
			}
		}
		out = append(out, Shape{Name: p.name, Inline: inline, Deferred: len(tools) - inline, Tokens: n})
	}
	return out, nil
}
