package tokencount

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

// The hosted BM25 tool search tool of the Anthropic Messages API. Its JSON
// shape, {"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"},
// and that of a deferred tool, a custom tool {"name","description",
// "input_schema"} with "defer_loading":true, follow:
//   - the guide https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
//     (two variants, tool_search_tool_regex_20251119 and
//     tool_search_tool_bm25_20251119; "include a tool search tool in your
//     tools list" and "defer_loading: true for tools that shouldn't be loaded
//     immediately"; its request example lists the search tool first, then
//     the deferred tools; deferred tools are not loaded into the context
//     until a search returns them as tool_reference blocks);
//   - anthropic-sdk-go v2.15.0 message.go: ToolSearchToolBm25_20251119Param
//     (Type "tool_search_tool_bm25_20251119", Name constant.ToolSearchToolBm25
//     whose default is "tool_search_tool_bm25") and ToolParam (Name,
//     Description, InputSchema as "input_schema", DeferLoading as
//     "defer_loading,omitzero": "If true, tool will not be included in
//     initial system prompt. Only loaded when returned via tool_reference
//     from tool search.").
const (
	// AnthropicSearchToolType is the type of the hosted BM25 search tool.
	AnthropicSearchToolType = "tool_search_tool_bm25_20251119"
	// AnthropicSearchToolName is the name of the hosted BM25 search tool.
	AnthropicSearchToolName = "tool_search_tool_bm25"
)

// anthropicTool is a custom tool of the Messages API (anthropic-sdk-go v2
// ToolParam): deferred tools carry "defer_loading":true, eager ones leave
// the field out, as the SDK leaves out an unset param.Opt.
type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

// anthropicSearchTool is the hosted search tool (anthropic-sdk-go v2
// ToolSearchToolBm25_20251119Param).
type anthropicSearchTool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// AnthropicMessagesTools renders the "tools" array of an Anthropic Messages
// request advertising tools: if any tool is deferred, first the hosted BM25
// search tool {"type":"tool_search_tool_bm25_20251119",
// "name":"tool_search_tool_bm25"}, then every tool in the order given as a
// custom tool {"name","description","input_schema"}, with
// "defer_loading":true for each tool for which inline reports false. A nil
// inline puts every tool inline, without the search tool. Unlike the
// OpenAI shape, deferred definitions are part of the request; the provider
// loads them into the model's context only once a search finds them (see
// AnthropicLoadedTools). Titles, keywords and tags are not part of the wire
// shape; an empty description is left out.
func AnthropicMessagesTools(tools []catalogfile.Tool, inline func(name string) bool) ([]byte, error) {
	return anthropicTools(tools, inline, true)
}

// AnthropicLoadedTools renders the part of AnthropicMessagesTools that the
// provider loads into the model's context before any search: the search
// tool, if any tool is deferred, and the non-deferred definitions, in the
// request's order. The deferred definitions, sent with "defer_loading":true,
// are left out. CompareFor counts this array for ProviderAnthropic.
func AnthropicLoadedTools(tools []catalogfile.Tool, inline func(name string) bool) ([]byte, error) {
	return anthropicTools(tools, inline, false)
}

// anthropicTools renders the Messages tools array, with or without the
// deferred definitions. Every tool's schema is checked, since the request
// carries deferred definitions too.
func anthropicTools(tools []catalogfile.Tool, inline func(name string) bool, withDeferred bool) ([]byte, error) {
	out := make([]any, 0, len(tools)+1)
	deferred := false
	for _, t := range tools {
		if !json.Valid(t.InputSchema) {
			return nil, fmt.Errorf("tokencount: tool %q: input schema is not valid JSON", t.Name)
		}
		if inline != nil && !inline(t.Name) {
			deferred = true
		}
	}
	if deferred {
		out = append(out, anthropicSearchTool{Type: AnthropicSearchToolType, Name: AnthropicSearchToolName})
	}
	for _, t := range tools {
		isDeferred := inline != nil && !inline(t.Name)
		if isDeferred && !withDeferred {
			continue
		}
		out = append(out, anthropicTool{
			Name:         wireName(t.Name),
			Description:  t.Description,
			InputSchema:  t.InputSchema,
			DeferLoading: isDeferred,
		})
	}
	return encodeTools(out)
}

// encodeTools renders a tools array as compact JSON, without HTML escaping
// and without a trailing newline.
func encodeTools(out []any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("tokencount: render tools: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
