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

// Provider names a request shape Compare can measure.
type Provider string

// The providers CompareFor knows.
const (
	// ProviderOpenAI is the OpenAI Responses API: inline tools as function
	// tools, deferred ones left out of the request behind one
	// client-executed tool_search tool (see OpenAIResponsesTools). The count
	// is that of the whole tools array, with the provider's own vocabulary.
	ProviderOpenAI Provider = "openai"
	// ProviderAnthropic is the Anthropic Messages API: every tool sent as a
	// custom tool, deferred ones with "defer_loading":true, plus the hosted
	// BM25 search tool (see AnthropicMessagesTools). Deferred definitions
	// are not loaded into the model's context until a search finds them, so
	// the count is that of the non-deferred definitions and the search tool
	// (see AnthropicLoadedTools). Anthropic's tokenizer is not available
	// offline: the count uses o200k_base and is an approximation.
	ProviderAnthropic Provider = "anthropic"
)

// Providers returns the providers CompareFor knows, the default first.
func Providers() []Provider { return []Provider{ProviderOpenAI, ProviderAnthropic} }

// Approximate reports whether counts for p use a vocabulary other than the
// provider's own: true for ProviderAnthropic.
func (p Provider) Approximate() bool { return p == ProviderAnthropic }

// render returns the bytes CompareFor counts for p.
func (p Provider) render(tools []catalogfile.Tool, inline func(string) bool) ([]byte, error) {
	switch p {
	case ProviderOpenAI:
		return OpenAIResponsesTools(tools, inline)
	case ProviderAnthropic:
		return AnthropicLoadedTools(tools, inline)
	default:
		return nil, fmt.Errorf("tokencount: unknown provider %q: want %q or %q", string(p), ProviderOpenAI, ProviderAnthropic)
	}
}

// Shape is the token cost of one way to advertise a catalog.
type Shape struct {
	// Name is ShapeAllInline, ShapeSearchOnly or ShapeSplit.
	Name string `json:"name"`
	// Inline and Deferred count the tools advertised as definitions the
	// model sees up front and those left behind the search tool.
	Inline   int `json:"inline"`
	Deferred int `json:"deferred"`
	// Tokens is the o200k_base count of what the request loads into the
	// model's context before any search: for ProviderOpenAI the whole tools
	// array, for ProviderAnthropic the non-deferred definitions and the
	// search tool (an approximation).
	Tokens int `json:"tokens"`
}

// Compare measures the OpenAI Responses tools array; it is
// CompareFor(ProviderOpenAI, tools, split).
func Compare(tools []catalogfile.Tool, split func(name string) bool) ([]Shape, error) {
	return CompareFor(ProviderOpenAI, tools, split)
}

// CompareFor measures the tools of provider p's request shape advertised
// all inline, search only and, when split is not nil, with the tools for
// which split reports true inline and the others deferred. With split nil
// the result has two shapes, otherwise three, in that order. An unknown
// provider is an error.
//
// Deferring tools usually costs less, but not always: deferring a single
// tool whose definition is shorter than the search tool's costs more.
func CompareFor(p Provider, tools []catalogfile.Tool, split func(name string) bool) ([]Shape, error) {
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
		data, err := p.render(tools, pl.inline)
		if err != nil {
			return nil, err
		}
		n, err := Count(data)
		if err != nil {
			return nil, err
		}
		inline := 0
		for _, t := range tools {
			if pl.inline(t.Name) {
				inline++
			}
		}
		out = append(out, Shape{Name: pl.name, Inline: inline, Deferred: len(tools) - inline, Tokens: n})
	}
	return out, nil
}
