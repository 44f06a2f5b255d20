package tokencount

import (
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/tools/catalogfile"
)

// The client-executed search tool of the OpenAI Responses API. Its JSON
// shape, {"type":"tool_search","execution":"client","description":…,
// "parameters":{…}}, follows:
//   - the API guide https://developers.openai.com/api/docs/guides/tools-tool-search
//     ("Client-executed tool search": a tool_search tool with
//     execution "client", a description and a parameters schema; the app
//     answers each tool_search_call with a tool_search_output listing the
//     loaded tools);
//   - openai-python src/openai/types/responses/tool_search_tool_param.py
//     (ToolSearchToolParam: type "tool_search", execution "server" |
//     "client", description and parameters "for a client-executed tool
//     search tool");
//   - openai-go v3 responses.ToolSearchToolParam{Execution:
//     responses.ToolSearchToolExecutionClient, Description, Parameters}, as
//     the guide's Go example builds it.
//
// With client execution the deferred tools are not in the request at all:
// they reach the model only inside tool_search_output items, after a search.
const (
	// SearchToolDescription is the description the search tool carries.
	SearchToolDescription = "Search the tools that are not loaded yet. Describe the capability you need in a few words, or give a tool's exact name; the best matches are loaded and become callable."
	// searchToolParameters is the search tool's arguments schema.
	searchToolParameters = `{"type":"object","properties":{"query":{"type":"string","description":"What the tool should do, or its exact name, e.g. 'export a table to csv' or 'startExport'."}},"required":["query"],"additionalProperties":false}`
)

// SearchToolParameters returns the JSON Schema of the search tool's
// arguments: one required string, query.
func SearchToolParameters() json.RawMessage { return json.RawMessage(searchToolParameters) }

// functionTool is a Responses API function tool (openai-go v3
// responses.FunctionToolParam).
type functionTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// toolSearchTool is the Responses API tool_search tool with client
// execution (see the sources above).
type toolSearchTool struct {
	Type        string          `json:"type"`
	Execution   string          `json:"execution"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// OpenAIResponsesTools renders the "tools" array of an OpenAI Responses
// request advertising tools: each tool for which inline reports true as a
// function tool {"type":"function","name","description","parameters",
// "strict":false} in the order given, then, if any tool is deferred, one
// client-executed tool_search tool. A nil inline puts every tool inline.
// Titles, keywords and tags are not part of the wire shape; an empty
// description is left out, as the SDKs leave out unset optional fields.
func OpenAIResponsesTools(tools []catalogfile.Tool, inline func(name string) bool) ([]byte, error) {
	out := make([]any, 0, len(tools)+1)
	deferred := 0
	for _, t := range tools {
		if inline != nil && !inline(t.Name) {
			deferred++
			continue
		}
		if !json.Valid(t.InputSchema) {
			return nil, fmt.Errorf("tokencount: tool %q: input schema is not valid JSON", t.Name)
		}
		out = append(out, functionTool{
			Type:        "function",
			Name:        wireName(t.Name),
			Description: t.Description,
			Parameters:  t.InputSchema,
			Strict:      false,
		})
	}
	if deferred > 0 {
		out = append(out, toolSearchTool{
			Type:        "tool_search",
			Execution:   "client",
			Description: SearchToolDescription,
			Parameters:  SearchToolParameters(),
		})
	}
	return encodeTools(out)
}
