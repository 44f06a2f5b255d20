package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// InjectFields returns payload with the spec's injected fields set: meta
// fields read straight from the call metadata (an empty value, such as no
// parent call in a top-level run, is the field's value), label fields from
// the run labels, validated with the field's own schema. Values the model
// may have put in those fields are overwritten. payload must be a JSON
// object when the spec injects anything.
func InjectFields(spec ToolSpec, payload json.RawMessage, meta CallMeta, labels map[string]string) (json.RawMessage, error) {
	if len(spec.Inject) == 0 {
		return payload, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("tools: %s has injected fields but its payload is not a JSON object", spec.Name)
	}
	for _, f := range spec.Inject {
		v, ok := f.Value(meta, labels)
		if f.Source != InjectMeta && !ok {
			return nil, fmt.Errorf("tools: injected field %q of %s has no value: supply the run label %q", f.Name, spec.Name, f.Name)
		}
		raw, err := marshalVerbatim(v)
		if err != nil {
			return nil, err
		}
		if f.Source != InjectMeta && !f.Schema.IsZero() {
			if err := f.Schema.Validate(raw); err != nil {
				return nil, fmt.Errorf("tools: run label %q does not fit field %q of %s: %w", f.Name, f.Name, spec.Name, err)
			}
		}
		obj[f.Name] = raw
	}
	return marshalVerbatim(obj)
}

// Decode is how an executor reads a call's payload: it validates payload
// against the spec's model-facing schema, fills the injected fields from
// meta and labels, and unmarshals the result into P. Composing the three in
// one call means injection can never be skipped; generated Decode functions
// call it with their typed payload.
func Decode[P any](spec ToolSpec, payload json.RawMessage, meta CallMeta, labels map[string]string) (P, error) {
	var p P
	if err := spec.Payload.Validate(payload); err != nil {
		return p, fmt.Errorf("tools: decode %s: %w", spec.Name, err)
	}
	full, err := InjectFields(spec, payload, meta, labels)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(full, &p); err != nil {
		return p, fmt.Errorf("tools: decode %s: %w", spec.Name, err)
	}
	return p, nil
}

// marshalVerbatim encodes v without escaping <, > and &.
func marshalVerbatim(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("tools: encode: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
