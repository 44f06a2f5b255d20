package runtime

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/quiver-go/quiver/tools"
)

// childResult is the result JSON of a completed child run, for the tool
// that ran it, by these rules (no other guess is made):
//
//   - a run ended by a tool result (terminal tool, final tool result):
//     that result;
//   - a final answer whose text is a JSON object or array: that JSON;
//   - otherwise, when the tool's result is an object with exactly one
//     property, a string: {"<property>": text};
//   - otherwise, when the result is a string: the text as a JSON string.
//
// Anything else fails: the caller's model reads an invalid_result failure
// naming the contract. The result is then validated against the tool's
// result schema by the pipeline's result step.
func childResult(spec tools.ToolSpec, out RunOutput) (json.RawMessage, error) {
	if r := out.FinalToolResult; r != nil && len(r.Result) > 0 {
		return r.Result, nil
	}
	if out.Final == nil {
		return nil, errors.New("the agent ended without an answer")
	}
	text := out.Final.Text
	if trimmed := bytes.TrimSpace([]byte(text)); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		return json.RawMessage(trimmed), nil
	}
	quoted, _ := json.Marshal(text) // a string always encodes
	var schema struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(spec.Result.Schema, &schema)
	switch {
	case schema.Type == "string":
		return quoted, nil
	case schema.Type == "object" && len(schema.Properties) == 1:
		for name, prop := range schema.Properties {
			var p struct {
				Type any `json:"type"`
			}
			if json.Unmarshal(prop, &p) == nil && p.Type == "string" {
				key, _ := json.Marshal(name)
				return json.RawMessage(`{` + string(key) + `:` + string(quoted) + `}`), nil
			}
		}
	case len(spec.Result.Schema) == 0:
		return quoted, nil
	}
	return nil, errors.New("the agent answered in text, and the tool's result is neither a string nor an object of one string field: have the agent answer with the result as JSON")
}
