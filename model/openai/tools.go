package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/model"
)

// searchToolDescription is the description of the tool_search tool. It
// names no tool: the model learns the deferred catalog only by searching.
const searchToolDescription = "Search this application's other tools by what you need to do, or by a tool's exact name. Matching tools are loaded and can be called right away."

// searchTool returns the client-executed tool_search tool. Shape:
// {"type":"tool_search","execution":"client","description":…,"parameters":…}
// — responses.ToolSearchToolParam in openai-go v3.99.0
// (responses/response.go) and "Client-executed tool search" in
// https://developers.openai.com/api/docs/guides/tools-tool-search, which
// lets the application choose the parameter schema. Ours takes one query,
// the argument the runtime's refusal message names
// (tool_search(query='…')).
func searchTool() responses.ToolUnionParam {
	return responses.ToolUnionParam{OfToolSearch: &responses.ToolSearchToolParam{
		Execution:   responses.ToolSearchToolExecutionClient,
		Description: sdk.String(searchToolDescription),
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"query": map[string]any{
					"type":        "string",
					"description": "What the tool should do, or its exact name.",
				},
			},
			"required":             []string{"query"},
			"additionalProperties": false,
		},
	}}
}

// functionTool renders an eager definition as a top-level function tool:
// {"type":"function","name":…,"description":…,"parameters":…,"strict":false}
// — responses.FunctionToolParam (openai-go v3.99.0, responses/response.go)
// and https://developers.openai.com/api/docs/guides/function-calling.
// Strict mode is off: our schemas are not written for its restrictions
// (every property required, no additional properties).
func functionTool(d model.ToolDefinition) (responses.ToolUnionParam, error) {
	params, err := schemaObject(d)
	if err != nil {
		return responses.ToolUnionParam{}, err
	}
	f := &responses.FunctionToolParam{Name: d.Name, Parameters: params, Strict: sdk.Bool(false)}
	if d.Description != "" {
		f.Description = sdk.String(d.Description)
	}
	return responses.ToolUnionParam{OfFunction: f}, nil
}

// namespaceTool renders a deferred definition as a tool_search_output
// entry: a namespace named like the function it holds, the function being
// defer_loading —
// {"type":"namespace","name":N,"description":…,"tools":[{"type":"function",
// "name":N,"description":…,"parameters":…,"strict":false,"defer_loading":true}]}.
// Types: responses.ToolSearchOutputNamespaceToolParam and
// ToolSearchOutputNamespaceToolToolFunctionParam (openai-go v3.99.0,
// responses/response.go); namespaces and defer_loading inside them: the
// tool search guide above ("For namespaces, defer_loading applies to the
// functions inside the namespace"). The provider then echoes the namespace
// on the function call ("namespace": N), a complete call identity for
// replay.
func namespaceTool(d model.ToolDefinition) (responses.ResponseToolSearchOutputItemParamToolUnion, error) {
	params, err := schemaObject(d)
	if err != nil {
		return responses.ResponseToolSearchOutputItemParamToolUnion{}, err
	}
	fn := &responses.ToolSearchOutputNamespaceToolToolFunctionParam{
		Name:         d.Name,
		Parameters:   params,
		Strict:       sdk.Bool(false),
		DeferLoading: sdk.Bool(true),
	}
	if d.Description != "" {
		fn.Description = sdk.String(d.Description)
	}
	desc := d.Title
	if desc == "" {
		desc = d.Description
	}
	return responses.ResponseToolSearchOutputItemParamToolUnion{OfNamespace: &responses.ToolSearchOutputNamespaceToolParam{
		Name:        d.Name,
		Description: desc,
		Tools:       []responses.ToolSearchOutputNamespaceToolToolUnionParam{{OfFunction: fn}},
	}}, nil
}

// schemaObject decodes a definition's input schema, keeping numbers as
// written. An empty schema is the empty object schema.
func schemaObject(d model.ToolDefinition) (map[string]any, error) {
	if len(bytes.TrimSpace(d.InputSchema)) == 0 {
		return map[string]any{"type": "object"}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(d.InputSchema))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("openai: tool %q: input schema must be a JSON object: %v", d.Name, err)
	}
	return m, nil
}

// toolChoice maps a tool choice — "tool_choice" in
// responses.ResponseNewParams: "none", "required", or
// {"type":"function","name":…} (responses.ToolChoiceFunctionParam). Auto is
// the API default and is omitted.
func toolChoice(tc model.ToolChoice, defs []model.ToolDefinition) (responses.ResponseNewParamsToolChoiceUnion, error) {
	var u responses.ResponseNewParamsToolChoiceUnion
	switch tc.Mode {
	case model.ToolChoiceAuto:
	case model.ToolChoiceNone:
		u.OfToolChoiceMode = sdk.Opt(responses.ToolChoiceOptionsNone)
	case model.ToolChoiceRequired:
		u.OfToolChoiceMode = sdk.Opt(responses.ToolChoiceOptionsRequired)
	case model.ToolChoiceTool:
		found := false
		for _, d := range defs {
			found = found || d.Name == tc.Name
		}
		if !found {
			return u, fmt.Errorf("openai: tool choice forces %q, which is not among the request's tools", tc.Name)
		}
		u.OfFunctionTool = &responses.ToolChoiceFunctionParam{Name: tc.Name}
	default:
		return u, fmt.Errorf("openai: unknown tool choice mode %q", tc.Mode)
	}
	return u, nil
}
