package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// DefaultDeniedResult is the JSON result the model receives for a denied
// call when the tool declares no DeniedResultTemplate.
const DefaultDeniedResult = `{"denied":true,"summary":"The user denied this call."}`

// CallHint returns the display hint of a call to spec's tool. override (set
// by runtime.WithHintOverrides), when non-empty, is a template that wins
// over spec.CallHintTemplate. The template is rendered with payload as its
// root: the typed Go payload of a generated tool ({{ .Query }}) or a
// map[string]any of the JSON keys of a runtime-compiled tool ({{ .query }}).
// The hint is spec.Title when there is no template, when payload is nil
// (decoding failed), or when rendering fails or yields only spaces. Hints
// are never rendered from raw JSON bytes: a json.RawMessage or []byte
// payload counts as undecoded.
func CallHint(spec tools.ToolSpec, payload any, override string) string {
	if override != "" {
		spec.CallHintTemplate = override
	}
	if spec.CallHintTemplate == "" || isNil(payload) || isRawJSON(payload) {
		return spec.Title
	}
	hint, err := execute("call hint template", spec.CallHintTemplate, payload)
	if err != nil || strings.TrimSpace(hint) == "" {
		return spec.Title
	}
	return hint
}

// ResultHint returns the display hint of a result of spec's tool. explicit
// (a hint the producer set) is returned unchanged when non-empty. Otherwise
// spec.ResultHintTemplate is rendered with the root
// struct{ Result any; Bounds *planner.Bounds }: {{ .Result.Count }},
// {{ .Bounds.Returned }}. With no template, or when rendering fails (a
// missing key, nil bounds read), the hint is "".
func ResultHint(spec tools.ToolSpec, result any, bounds *planner.Bounds, explicit string) string {
	if explicit != "" {
		return explicit
	}
	if spec.ResultHintTemplate == "" {
		return ""
	}
	root := struct {
		Result any
		Bounds *planner.Bounds
	}{result, bounds}
	hint, err := execute("result hint template", spec.ResultHintTemplate, root)
	if err != nil || strings.TrimSpace(hint) == "" {
		return ""
	}
	return hint
}

// ConfirmationPrompt returns the question shown to the approver of a call
// to spec's tool: spec.Confirmation.PromptTemplate rendered over the payload
// decoded as a map of its JSON keys ({{ .key }}, {{ json .value }},
// {{ index . "optional" }} for keys that may be absent; numbers keep their
// JSON spelling). Without a template (or without a ConfirmationSpec, for
// confirmation enabled at run time) the prompt names the tool's title and
// its payload JSON.
func ConfirmationPrompt(spec tools.ToolSpec, payload json.RawMessage) (string, error) {
	text := ""
	if spec.Confirmation != nil {
		text = spec.Confirmation.PromptTemplate
	}
	if text == "" {
		compacted, err := compactJSON(payload)
		if err != nil {
			return "", fmt.Errorf("render: %s: confirmation prompt: payload: %w", spec.Name, err)
		}
		return fmt.Sprintf("Approve %s with arguments %s?", quoteTitle(spec), compacted), nil
	}
	root, err := payloadMap(payload)
	if err != nil {
		return "", fmt.Errorf("render: %s: confirmation prompt template: %w", spec.Name, err)
	}
	out, err := execute("confirmation prompt template", text, root)
	if err != nil {
		return "", fmt.Errorf("render: %s: %w", spec.Name, err)
	}
	return out, nil
}

// DeniedResult returns the JSON result the model receives when a call to
// spec's tool is denied: spec.Confirmation.DeniedResultTemplate rendered as
// ConfirmationPrompt renders its template, compacted. The rendered text must
// be valid JSON. Without a template it is DefaultDeniedResult.
func DeniedResult(spec tools.ToolSpec, payload json.RawMessage) (json.RawMessage, error) {
	text := ""
	if spec.Confirmation != nil {
		text = spec.Confirmation.DeniedResultTemplate
	}
	if text == "" {
		return json.RawMessage(DefaultDeniedResult), nil
	}
	root, err := payloadMap(payload)
	if err != nil {
		return nil, fmt.Errorf("render: %s: confirmation denied result template: %w", spec.Name, err)
	}
	out, err := execute("confirmation denied result template", text, root)
	if err != nil {
		return nil, fmt.Errorf("render: %s: %w", spec.Name, err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(out)); err != nil {
		return nil, fmt.Errorf("render: %s: confirmation denied result template rendered invalid JSON (%v): %s", spec.Name, err, out)
	}
	return json.RawMessage(b.Bytes()), nil
}

// execute parses text with tools.ParseTemplate and runs it on root; errors
// name the template.
func execute(name, text string, root any) (string, error) {
	t, err := tools.ParseTemplate(name, text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, root); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return b.String(), nil
}

// payloadMap decodes a payload JSON object into a map of its keys, numbers
// as json.Number; an empty payload is an empty object.
func payloadMap(payload json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(payload)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("payload is not a JSON object: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("payload is not a JSON object: null")
	}
	if dec.More() {
		return nil, fmt.Errorf("payload is not a JSON object: trailing data")
	}
	return m, nil
}

// compactJSON returns payload without insignificant whitespace; empty is {}.
func compactJSON(payload json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(payload)) == 0 {
		return "{}", nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, payload); err != nil {
		return "", err
	}
	return b.String(), nil
}

// quoteTitle returns the tool's title in double quotes, or its ident when it
// has none.
func quoteTitle(spec tools.ToolSpec) string {
	if spec.Title != "" {
		return fmt.Sprintf("%q", spec.Title)
	}
	return string(spec.Name)
}

// isNil reports whether v is nil or a nil pointer, map, slice or interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// isRawJSON reports whether v is undecoded JSON bytes.
func isRawJSON(v any) bool {
	switch v.(type) {
	case json.RawMessage, []byte:
		return true
	}
	return false
}
