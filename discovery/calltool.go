package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/model"
)

// The call-tool mode keeps a tool list stable: found tools never join it.
// A search answers with the found tools' definitions, and the model (or an
// MCP client that never lists again) calls them through one function,
// model.CallToolName, whose arguments name the tool and carry its
// arguments. Admission is unchanged: the call is the call of the named
// tool, refused while no search found it.

// callToolSchema is the input schema of the call-tool function.
const callToolSchema = `{"type":"object","properties":{"name":{"type":"string","description":"The name of a tool a search found."},"arguments":{"type":"object","description":"The tool's arguments, matching the inputSchema the search answered with."}},"required":["name"],"additionalProperties":false}`

// CallToolDefinition is the definition of the call-tool function named
// name (model.CallToolName unless configured otherwise); searchTool is the
// search tool's name, which its description points to.
func CallToolDefinition(name, searchTool string) model.ToolDefinition {
	return model.ToolDefinition{
		Name:        name,
		Title:       "Call a found tool",
		Description: fmt.Sprintf("Call a tool that %s found, by its name, with arguments matching the inputSchema the search answered with.", searchTool),
		InputSchema: json.RawMessage(callToolSchema),
	}
}

// CallToolArguments are the arguments of one call-tool call.
type CallToolArguments struct {
	// Name is the wire name of the tool to call.
	Name string `json:"name"`
	// Arguments are its arguments ({} when the call gave none).
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ParseCallTool reads the arguments of a call of the call-tool function
// name: {"name": "…", "arguments": {…}}, naming a tool other than the
// call-tool function itself and the search tool searchTool (which the
// model calls directly). The error is the message a model reads to fix
// the call.
func ParseCallTool(name, searchTool string, args json.RawMessage) (CallToolArguments, error) {
	var a CallToolArguments
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil || a.Name == "" {
		return CallToolArguments{}, fmt.Errorf(`%s takes {"name": "<a tool's name from the search answer>", "arguments": {<its arguments>}}`, name)
	}
	switch a.Name {
	case name:
		return CallToolArguments{}, fmt.Errorf("%s cannot call itself: name a tool %s found", name, searchTool)
	case searchTool:
		return CallToolArguments{}, fmt.Errorf("%s calls the tools %s found, not the search: call %s directly", name, searchTool, searchTool)
	}
	trimmed := bytes.TrimSpace(a.Arguments)
	switch {
	case len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")):
		a.Arguments = json.RawMessage("{}")
	case trimmed[0] != '{':
		return CallToolArguments{}, fmt.Errorf(`%s: "arguments" must be a JSON object (the tool's arguments), not %s`, name, kindOf(trimmed[0]))
	default:
		a.Arguments = json.RawMessage(trimmed)
	}
	return a, nil
}

// kindOf names the JSON kind starting with c.
func kindOf(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// InvalidCallJSON is the answer to a call-tool call whose arguments could
// not be read: {"error":"invalid-call","message":"…"}.
func InvalidCallJSON(err error) json.RawMessage {
	return encode(map[string]string{"error": "invalid-call", "message": err.Error()})
}

// definedTool is one search result in call-tool mode: what the model needs
// to call the tool through the call-tool function.
type definedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// CallToolJSON is the answer a as the model reads it in call-tool mode:
// a found tool comes with its input schema, and the answer says how to call
// it,
//
//	{"query":"…","tools":[{"name":"…","description":"…","inputSchema":{…}}],"message":"Call a tool found here with call_tool(name='<name>', arguments={…}) …"}
//
// Every other answer (no match, budget spent, invalid query) is a.JSON.
func (a Answer) CallToolJSON(callTool string) json.RawMessage {
	if a.Kind != Found {
		return a.JSON
	}
	listed := make([]definedTool, len(a.Tools))
	for i, d := range a.Tools {
		schema := d.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		listed[i] = definedTool{Name: d.Name, Description: d.Description, InputSchema: schema}
	}
	return encode(map[string]any{
		"query":   a.Query,
		"tools":   listed,
		"message": fmt.Sprintf("Call a tool found here with %s(name='<its name>', arguments={<matching its inputSchema>}); it stays callable for the rest of the conversation.", callTool),
	})
}
