package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// InjectionError reports an injected field the runtime could not fill. Its
// message names the field and the label, never their values: it reaches the
// model, and a label's value is the host's, not the model's.
type InjectionError struct {
	// Tool is the tool whose payload was being filled.
	Tool Ident
	// Field is the injected field.
	Field string
	// Problem says what is wrong, without the value.
	Problem string
	// Cause is the schema violation of a label's value, when there is one.
	// It may quote the value: log it on the host's side, never show it to
	// a model.
	Cause error
}

// Error returns the problem, naming the tool and field.
func (e *InjectionError) Error() string {
	return fmt.Sprintf("tools: injected field %s of %s: %s", strconv.Quote(e.Field), e.Tool, e.Problem)
}

// InjectFields returns payload with the spec's injected fields set: meta
// fields read straight from the call metadata (an empty value, such as no
// parent call in a top-level run, is the field's value), label fields from
// the run labels, validated with the field's own schema. payload should be
// canonical ([CanonicalPayload]), which refuses a model-supplied injected
// field; any such value left in it is overwritten. payload must be a JSON
// object when the spec injects anything. Failures are *InjectionError
// values.
func InjectFields(spec ToolSpec, payload json.RawMessage, meta CallMeta, labels map[string]string) (json.RawMessage, error) {
	if len(spec.Inject) == 0 {
		return payload, nil
	}
	var obj map[string]json.RawMessage
	if err := Unmarshal(payload, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("tools: %s has injected fields but its payload is not a JSON object", spec.Name)
	}
	for _, f := range spec.Inject {
		v, ok := f.Value(meta, labels)
		if f.Source != InjectMeta && !ok {
			return nil, &InjectionError{Tool: spec.Name, Field: f.Name, Problem: fmt.Sprintf("it has no value: supply the run label %s", strconv.Quote(f.Name))}
		}
		raw, err := marshalVerbatim(v)
		if err != nil {
			return nil, err
		}
		if f.Source != InjectMeta && !f.Schema.IsZero() {
			if err := f.Schema.Validate(raw); err != nil {
				return nil, &InjectionError{Tool: spec.Name, Field: f.Name, Cause: err, Problem: fmt.Sprintf(
					"the run label %s does not satisfy the field's schema: the host must pass a valid label", strconv.Quote(f.Name))}
			}
		}
		obj[f.Name] = raw
	}
	return marshalVerbatim(obj)
}

// Decode is how an executor reads a call's payload: it canonicalizes the
// payload ([CanonicalPayload] with default limits: duplicate keys, case and
// Unicode-folding variants of declared properties, and injected fields sent
// by the caller are refused), validates it against the spec's model-facing
// schema, fills the injected fields from meta and labels, and unmarshals
// the result into P matching keys exactly ([Unmarshal]). Composing these in
// one call means injection can never be skipped or overridden; generated
// Decode functions call it with their typed payload.
func Decode[P any](spec ToolSpec, payload json.RawMessage, meta CallMeta, labels map[string]string) (P, error) {
	var p P
	canonical, err := CanonicalPayload(spec, payload, PayloadLimits{})
	if err != nil {
		return p, err
	}
	if err := spec.Payload.Validate(canonical); err != nil {
		return p, fmt.Errorf("tools: decode %s: %w", spec.Name, err)
	}
	full, err := InjectFields(spec, canonical, meta, labels)
	if err != nil {
		return p, err
	}
	if err := Unmarshal(full, &p); err != nil {
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
