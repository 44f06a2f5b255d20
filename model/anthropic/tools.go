package anthropic

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/gowebpki/jcs"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// clientSearchSchema is the input schema of the client-side search tool.
const clientSearchSchema = `{"type":"object","properties":{"query":{"type":"string","description":"Words describing the capability you need, or a tool's name."}},"required":["query"]}`

// clientSearchDescription is the client-side search tool's description.
const clientSearchDescription = "Search the tools that are not loaded yet by what they do. The tools it returns become callable: call them by name afterwards."

// toolSet is the tools part of one invocation.
type toolSet struct {
	// params are the tools as sent, search tool last.
	params []sdk.ToolUnionParam
	// byWire are the request's definitions by wire name.
	byWire map[string]model.ToolDefinition
	// prints are the fingerprints of the definitions as sent, by wire name.
	prints map[string]string
	// searchTool is the wire name of the search tool sent, "" for none.
	searchTool string
}

// buildTools maps the request's definitions to the Messages API's tools.
// Each definition becomes a custom tool (ToolParam, SDK v2.15.0
// message.go: name, description, input_schema, defer_loading,
// input_examples, cache_control). Deferred definitions get
// "defer_loading": true (deferLoading says which), and the search tool of
// the variant closes the list (Anthropic docs, "Tool search tool": a
// tool_search_tool_bm25_20251119 or tool_search_tool_regex_20251119 entry,
// or, for a custom implementation, a regular tool whose results hold
// tool_reference blocks). A history that holds searches keeps the search
// tool in the request even without deferred tools. eager names deferred
// tools to send without defer_loading: those the conversation discovered
// that no tool_reference of the history loads (client-side search).
func buildTools(req *model.Request, s *settings, h searchHistory, eager map[string]bool) (*toolSet, error) {
	ts := &toolSet{byWire: make(map[string]model.ToolDefinition, len(req.Tools)), prints: make(map[string]string, len(req.Tools))}
	forced := ""
	if req.ToolChoice.Mode == model.ToolChoiceTool {
		forced = req.ToolChoice.Name
	}
	deferLoading := func(d model.ToolDefinition) bool {
		switch {
		case !d.Deferred || eager[d.Name]:
			return false
		case d.Name == forced:
			// A forced tool is sent eagerly so the model can call it at
			// once — unless the history holds a tool_reference to it: a
			// tool a tool_reference names must be sent with defer_loading
			// (Anthropic docs, "Tool search tool", custom tool search
			// implementation: references expand deferred definitions), and
			// the reference has loaded it already.
			return h.referenced[d.Name]
		}
		return true
	}
	// Anthropic docs, "Tool search tool", Error handling: "The tool search
	// tool is not compatible with tool use examples". A request that
	// carries a search tool keeps the declared examples in the schemas.
	withSearch := h.searched || slices.ContainsFunc(req.Tools, deferLoading)
	for _, d := range req.Tools {
		if !tools.ValidWireName(d.Name) {
			return nil, fmt.Errorf("anthropic: tool name %q must match %s", d.Name, wireNamePattern)
		}
		if _, dup := ts.byWire[d.Name]; dup {
			return nil, fmt.Errorf("anthropic: two tool definitions are named %q", d.Name)
		}
		ts.byWire[d.Name] = d
		p, fp, err := toolParam(d, deferLoading(d), !withSearch)
		if err != nil {
			return nil, err
		}
		ts.params = append(ts.params, sdk.ToolUnionParam{OfTool: p})
		ts.prints[d.Name] = fp
	}
	if !withSearch {
		return ts, nil
	}
	switch s.search {
	case SearchBM25:
		ts.searchTool = "tool_search_tool_bm25"
		ts.params = append(ts.params, sdk.ToolUnionParamOfToolSearchToolBm25_20251119(sdk.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119))
	case SearchRegex:
		ts.searchTool = "tool_search_tool_regex"
		ts.params = append(ts.params, sdk.ToolUnionParamOfToolSearchToolRegex20251119(sdk.ToolSearchToolRegex20251119TypeToolSearchToolRegex20251119))
	case SearchClient:
		ts.searchTool = s.clientSearchName(req.Search)
		ts.params = append(ts.params, sdk.ToolUnionParam{OfTool: &sdk.ToolParam{
			Name:        ts.searchTool,
			Description: sdk.String(clientSearchDescription),
			InputSchema: param.Override[sdk.ToolInputSchemaParam](json.RawMessage(clientSearchSchema)),
		}})
	}
	if _, clash := ts.byWire[ts.searchTool]; clash {
		return nil, fmt.Errorf("anthropic: a tool definition is named %q like the %s search tool: rename it or choose another search tool name", ts.searchTool, s.search)
	}
	return ts, nil
}

// toolParam returns the custom tool for d and the fingerprint of its
// definition. With withExamples, a declared root example goes to
// input_examples (SDK v2.15.0 message.go: ToolParam.InputExamples,
// `json:"input_examples"`, one JSON object per example) and the schema
// loses its root "example"/"examples", which would repeat it; without, the
// schema is sent as declared, example included. The fingerprint does not
// depend on withExamples.
func toolParam(d model.ToolDefinition, deferred, withExamples bool) (*sdk.ToolParam, string, error) {
	schema := d.InputSchema
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	sent := schema
	var examples []map[string]any
	if len(d.Examples) > 0 {
		var err error
		if schema, err = withoutRootExample(schema); err != nil {
			return nil, "", fmt.Errorf("anthropic: tool %q: input schema: %w", d.Name, err)
		}
	}
	if len(d.Examples) > 0 && withExamples {
		sent = schema
		for i, raw := range d.Examples {
			ex, err := decodeObject(raw)
			if err != nil {
				return nil, "", fmt.Errorf("anthropic: tool %q: example %d: input_examples takes JSON objects: %w", d.Name, i+1, err)
			}
			examples = append(examples, ex)
		}
	}
	p := &sdk.ToolParam{
		Name:          d.Name,
		InputSchema:   param.Override[sdk.ToolInputSchemaParam](json.RawMessage(sent)),
		InputExamples: examples,
	}
	if d.Description != "" {
		p.Description = sdk.String(d.Description)
	}
	if deferred {
		p.DeferLoading = sdk.Bool(true)
	}
	fp, err := fingerprint(d.Description, schema, d.Examples)
	if err != nil {
		return nil, "", fmt.Errorf("anthropic: tool %q: %w", d.Name, err)
	}
	return p, fp, nil
}

// withoutRootExample returns schema without its root "example" and
// "examples" members (unchanged when it has neither).
func withoutRootExample(schema json.RawMessage) (json.RawMessage, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(schema, &members); err != nil {
		return nil, err
	}
	_, a := members["example"]
	_, b := members["examples"]
	if !a && !b {
		return schema, nil
	}
	delete(members, "example")
	delete(members, "examples")
	return json.Marshal(members)
}

// decodeObject decodes a JSON object, keeping numbers exact.
func decodeObject(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", raw)
	}
	return obj, nil
}

// fingerprint hashes what the provider expands a tool reference into:
// description, input schema and input examples, as RFC 8785 canonical JSON
// (sha256:<hex>).
func fingerprint(description string, schema json.RawMessage, examples []json.RawMessage) (string, error) {
	raw, err := json.Marshal(struct {
		Description string            `json:"description"`
		InputSchema json.RawMessage   `json:"input_schema"`
		Examples    []json.RawMessage `json:"input_examples,omitempty"`
	}{description, schema, examples})
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// cacheLastTool puts a cache_control breakpoint on the last tool (Anthropic
// docs, "Prompt caching": a cache_control on the last tool definition
// caches the tools; SDK v2.15.0 message.go: CacheControl on ToolParam and on
// both tool search tools). Without tools there is nothing to mark: it
// places nothing and reports placed false, for the caller to list the
// checkpoint as ignored.
func cacheLastTool(params []sdk.ToolUnionParam) (placed bool, err error) {
	if len(params) == 0 {
		return false, nil
	}
	t := &params[len(params)-1]
	cc := sdk.NewCacheControlEphemeralParam()
	switch {
	case t.OfTool != nil:
		t.OfTool.CacheControl = cc
	case t.OfToolSearchToolBm25_20251119 != nil:
		t.OfToolSearchToolBm25_20251119.CacheControl = cc
	case t.OfToolSearchToolRegex20251119 != nil:
		t.OfToolSearchToolRegex20251119.CacheControl = cc
	default:
		return false, fmt.Errorf("anthropic: cache checkpoint AfterTools: the last tool is of a kind this adapter does not build, so it cannot carry cache_control")
	}
	return true, nil
}
