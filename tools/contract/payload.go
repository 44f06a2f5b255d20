package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/internal/jsonobj"
	"github.com/quiver-go/quiver/tools"
)

// payloadSchema is an input schema split into what the model sees and the
// schemas of the injected fields.
type payloadSchema struct {
	// modelFacing is the input schema without the injected properties, and
	// without them in "required".
	modelFacing json.RawMessage
	// injected maps each injected field to its own property schema.
	injected map[string]json.RawMessage
}

// splitPayload checks that input is an object schema declaring every
// injected field as a string property, and removes those fields from the
// model-facing copy, whose root is closed unless input says otherwise
// (closeRoot). Problems are appended to ps; ok is false when no
// model-facing schema could be derived.
func splitPayload(input json.RawMessage, inject []string, ps *problems) (payloadSchema, bool) {
	if len(bytes.TrimSpace(input)) == 0 {
		ps.addf(`input_schema is empty: declare an object schema such as {"type":"object","properties":{}}`)
		return payloadSchema{}, false
	}
	root, err := jsonobj.Members(input)
	if err != nil {
		ps.addf("input_schema must be a JSON object schema: %w", err)
		return payloadSchema{}, false
	}
	if t, ok := jsonobj.Get(root, "type"); !ok || !isJSONString(t, "object") {
		ps.addf(`input_schema: root "type" must be "object": models send arguments as one JSON object`)
	}
	root, closed := closeRoot(root, ps)
	out := payloadSchema{injected: make(map[string]json.RawMessage, len(inject))}
	if len(inject) == 0 {
		if closed {
			out.modelFacing = jsonobj.Encode(root)
		} else {
			out.modelFacing = bytes.Clone(input)
		}
		return out, true
	}
	var props []jsonobj.Member
	if raw, ok := jsonobj.Get(root, "properties"); ok {
		if props, err = jsonobj.Members(raw); err != nil {
			ps.addf(`input_schema: "properties" must be an object: %w`, err)
			return payloadSchema{}, false
		}
	}
	for i, name := range inject {
		switch {
		case name == "":
			ps.addf("inject %d: the field name is empty", i)
			continue
		case slices.Contains(inject[:i], name):
			ps.addf("inject: field %q is listed twice", name)
			continue
		}
		prop, ok := jsonobj.Get(props, name)
		if !ok {
			ps.addf(`inject: field %q is not a property of input_schema: declare it there as {"type":"string"}`, name)
			continue
		}
		pm, err := jsonobj.Members(prop)
		if t, ok := jsonobj.Get(pm, "type"); err != nil || !ok || !isJSONString(t, "string") {
			ps.addf(`inject: field %q must be declared with "type": "string": injected values are strings`, name)
			continue
		}
		out.injected[name] = bytes.Clone(prop)
	}
	root = jsonobj.Set(root, "properties", jsonobj.Encode(jsonobj.Without(props, inject...)))
	if raw, ok := jsonobj.Get(root, "required"); ok {
		var req []string
		if err := json.Unmarshal(raw, &req); err != nil {
			ps.addf(`input_schema: "required" must be an array of property names`)
			return payloadSchema{}, false
		}
		req = slices.DeleteFunc(req, func(r string) bool { return slices.Contains(inject, r) })
		if len(req) == 0 {
			root = jsonobj.Without(root, "required")
		} else {
			root = jsonobj.Set(root, "required", encodeStrings(req))
		}
	}
	out.modelFacing = jsonobj.Encode(root)
	return out, true
}

// isJSONString reports whether raw is the JSON string want.
func isJSONString(raw json.RawMessage, want string) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && s == want
}

// encodeStrings writes a JSON array of strings without HTML escaping.
func encodeStrings(ss []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonobj.String(s))
	}
	b.WriteByte(']')
	return b.Bytes()
}

// injectedFields classifies the declared injected fields and compiles their
// property schemas.
func injectedFields(inject []string, schemas map[string]json.RawMessage, ps *problems) []tools.InjectedField {
	var out []tools.InjectedField
	for _, name := range inject {
		raw, ok := schemas[name]
		if !ok {
			continue // reported by splitPayload
		}
		f := tools.ClassifyInjected(name)
		t, err := tools.NewTypeSpec("", raw)
		if err != nil {
			ps.addf("inject: field %q: %w", name, err)
			continue
		}
		f.Schema = t
		out = append(out, f)
	}
	return out
}

// requiredLabels returns the declared labels followed by the keys of
// label-backed injected fields not already listed.
func requiredLabels(declared []string, inject []tools.InjectedField) []string {
	out := slices.Clone(declared)
	for _, f := range inject {
		if f.Source == tools.InjectLabel && !slices.Contains(out, f.Name) {
			out = append(out, f.Name)
		}
	}
	return out
}

// problems accumulates declaration problems.
type problems []error

func (ps *problems) add(err error) { *ps = append(*ps, err) }

func (ps *problems) addf(format string, args ...any) { ps.add(fmt.Errorf(format, args...)) }
