package advertised

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/model/tokencount"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// Provider names a provider adapter whose tools array can be measured.
type Provider string

// The providers this package knows.
const (
	// ProviderOpenAI is the OpenAI Responses adapter (model/openai).
	ProviderOpenAI Provider = "openai"
	// ProviderAnthropic is the Anthropic Messages adapter (model/anthropic).
	ProviderAnthropic Provider = "anthropic"
)

// Providers returns the providers this package knows, the default first.
func Providers() []Provider { return []Provider{ProviderOpenAI, ProviderAnthropic} }

// Approximate reports whether counts for p use a vocabulary other than the
// provider's own: true for ProviderAnthropic.
func (p Provider) Approximate() bool { return p == ProviderAnthropic }

// check returns an error naming the known providers when p is not one.
func (p Provider) check() error {
	switch p {
	case ProviderOpenAI, ProviderAnthropic:
		return nil
	}
	return fmt.Errorf("advertised: unknown provider %q: want %q or %q", string(p), ProviderOpenAI, ProviderAnthropic)
}

// requestMaxTokens is the output budget of the requests Request builds. The
// adapters refuse deferred tools without one; it does not change the tools
// array.
const requestMaxTokens = 1024

// Options are the settings besides the definitions that shape a tools
// array. The zero value is an agent without cache checkpoints on native
// search, with the Anthropic adapter's default search variant.
type Options struct {
	// Cache are the agent's prompt-cache checkpoints. AfterTools puts
	// "cache_control" on the last tool of an Anthropic request; the OpenAI
	// adapter ignores it (tool definitions carry no breakpoint there).
	Cache model.CacheCheckpoints
	// AnthropicSearch is the Anthropic adapter's search variant
	// (anthropic.WithSearch); the zero value is anthropic.SearchBM25.
	AnthropicSearch anthropic.SearchVariant
}

// AnthropicOptions returns the options of an Anthropic client that sends
// the tools array Render measures for ProviderAnthropic.
func (o Options) AnthropicOptions() []anthropic.Option {
	return []anthropic.Option{anthropic.WithSearch(o.AnthropicSearch)}
}

// Request returns the request Render measures: defs on native search with
// o.Cache, an output budget (which the adapters require when tools are
// deferred) and no conversation, which does not change the tools array.
func Request(defs []model.ToolDefinition, o Options) *model.Request {
	return &model.Request{Tools: defs, MaxTokens: requestMaxTokens, Cache: o.Cache}
}

// Render returns the "tools" array that p's adapter sends for
// Request(defs, o), byte for byte as in the request body
// (openai.RenderTools, anthropic.RenderTools with o.AnthropicOptions()).
// It is nil when the request carries no tools array.
func Render(p Provider, defs []model.ToolDefinition, o Options) (json.RawMessage, error) {
	req := Request(defs, o)
	var (
		sent json.RawMessage
		err  error
	)
	switch p {
	case ProviderOpenAI:
		sent, err = openai.RenderTools(req)
	case ProviderAnthropic:
		sent, err = anthropic.RenderTools(req, o.AnthropicOptions()...)
	default:
		return nil, p.check()
	}
	if err != nil {
		return nil, fmt.Errorf("advertised: %w", err)
	}
	return sent, nil
}

// Loaded returns the part of a tools array sent to p that the provider
// loads into the model's context before any search: for ProviderOpenAI the
// whole array, whose deferred tools are not in the request; for
// ProviderAnthropic the array without the elements marked
// "defer_loading": true, the other elements kept byte for byte and in
// order. An empty sent array stays empty.
func Loaded(p Provider, sent json.RawMessage) (json.RawMessage, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if p == ProviderOpenAI || len(sent) == 0 {
		return sent, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(sent, &elems); err != nil {
		return nil, fmt.Errorf("advertised: tools array: %w", err)
	}
	var out bytes.Buffer
	out.WriteByte('[')
	kept := 0
	for i, e := range elems {
		var flag struct {
			DeferLoading bool `json:"defer_loading"`
		}
		if err := json.Unmarshal(e, &flag); err != nil {
			return nil, fmt.Errorf("advertised: tools[%d]: %w", i, err)
		}
		if flag.DeferLoading {
			continue
		}
		if kept > 0 {
			out.WriteByte(',')
		}
		out.Write(e)
		kept++
	}
	out.WriteByte(']')
	return out.Bytes(), nil
}

// Tokens returns the o200k_base tokens of what p's request for
// Request(defs, o) loads into the model's context before any search:
// tokencount.Count of Loaded(p, Render(p, defs, o)).
func Tokens(p Provider, defs []model.ToolDefinition, o Options) (int, error) {
	sent, err := Render(p, defs, o)
	if err != nil {
		return 0, err
	}
	loaded, err := Loaded(p, sent)
	if err != nil {
		return 0, err
	}
	return tokencount.Count(loaded)
}

// SearchTool returns the search tool that p's adapter appends to the tools
// array of a request with deferred definitions, byte for byte as sent for
// Options o (the Anthropic variant, cache_control when it is the last
// tool), and its name: the "name" member, or the "type" member of a tool
// without one (OpenAI's tool_search).
func SearchTool(p Provider, o Options) (tool json.RawMessage, name string, err error) {
	probe := tools.ToolSpec{Name: "advertised.probe", Title: "Probe", Description: "Stands in for a deferred tool."}
	probe.Search = search.NewDocument(probe.SearchSource())
	c, err := catalog.New([]catalog.Entry{{Spec: probe, Deferred: true}}, catalog.Filter{}, nil)
	if err != nil {
		return nil, "", fmt.Errorf("advertised: %w", err)
	}
	sent, err := Render(p, c.AdvertisedToolDefinitions(), o)
	if err != nil {
		return nil, "", err
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(sent, &elems); err != nil || len(elems) == 0 {
		return nil, "", fmt.Errorf("advertised: %s sends no search tool for a deferred definition: %s", p, sent)
	}
	tool = elems[len(elems)-1]
	var id struct{ Name, Type string }
	if err := json.Unmarshal(tool, &id); err != nil {
		return nil, "", fmt.Errorf("advertised: search tool: %w", err)
	}
	name = id.Name
	if name == "" {
		name = id.Type
	}
	return tool, name, nil
}
