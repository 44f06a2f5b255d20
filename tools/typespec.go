package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/quiver-go/quiver/internal/jsonobj"
)

// ErrInvalidJSON is wrapped by errors about data that is not well-formed JSON.
var ErrInvalidJSON = errors.New("tools: invalid JSON")

// ErrInvalidSchema is wrapped by errors about a schema that does not compile.
var ErrInvalidSchema = errors.New("tools: invalid schema")

// ErrNotCompiled is returned when a [TypeSpec] carries a schema but was not
// built by [NewTypeSpec], so it has no validator.
var ErrNotCompiled = errors.New("tools: type spec not compiled")

// TypeSpec describes a payload, result or server-data type: its JSON Schema
// as the model sees it, its declared example, and a validating codec.
//
// Build it with [NewTypeSpec]. The zero TypeSpec declares no type:
// [TypeSpec.Validate] and [TypeSpec.Decode] then only check that data is
// well-formed JSON. The compiled schema is shared, immutable state: copies
// and clones reuse it.
type TypeSpec struct {
	// Name is the Go type name, or "".
	Name string
	// Schema is the JSON Schema as the model sees it. For a payload, injected
	// fields never appear in it (nor in its required list).
	Schema json.RawMessage
	// Example is the declared root example, or nil. Generated and
	// synthesized examples are never promoted here.
	Example *Example

	compiled *compiledSchema
}

// Example is a payload's declared root example in the three projections
// provider adapters use.
type Example struct {
	// Raw is the example as JSON.
	Raw json.RawMessage
	// Value is [Example.Raw] parsed (objects as map[string]any, numbers as
	// [json.Number]).
	Value any
	// SchemaWithoutExample is the [TypeSpec]'s schema with only its root
	// "example" and "examples" removed.
	SchemaWithoutExample json.RawMessage
}

// Clone returns a deep copy of e.
func (e *Example) Clone() *Example {
	if e == nil {
		return nil
	}
	return &Example{
		Raw:                  bytes.Clone(e.Raw),
		Value:                cloneJSONValue(e.Value),
		SchemaWithoutExample: bytes.Clone(e.SchemaWithoutExample),
	}
}

// NewTypeSpec compiles schema (JSON Schema draft 2020-12 unless it names
// another draft with "$schema") and returns a [TypeSpec] validating against it.
// References outside the schema document are refused: a tool contract must be
// self-contained. A schema that does not compile gets the same error every
// time: every metaschema violation, sorted by location, or else the first
// problem, in document order, that stops compilation.
func NewTypeSpec(name string, schema json.RawMessage) (TypeSpec, error) {
	c, err := compileSchema(schema)
	if err != nil {
		if name != "" {
			return TypeSpec{}, fmt.Errorf("tools: type %s: %w", name, err)
		}
		return TypeSpec{}, err
	}
	return TypeSpec{Name: name, Schema: bytes.Clone(schema), compiled: c}, nil
}

// MustTypeSpec is [NewTypeSpec] for schemas checked at generation time; it
// panics if schema does not compile.
func MustTypeSpec(name string, schema json.RawMessage) TypeSpec {
	t, err := NewTypeSpec(name, schema)
	if err != nil {
		panic(err)
	}
	return t
}

// WithExample returns a copy of t whose [TypeSpec.Example] is raw, the
// declared root example. raw must be well-formed JSON that satisfies t's
// schema.
func (t TypeSpec) WithExample(raw json.RawMessage) (TypeSpec, error) {
	v, err := t.Decode(raw)
	if err != nil {
		return TypeSpec{}, fmt.Errorf("tools: example for %s: %w", t.describe(), err)
	}
	var without json.RawMessage
	if len(t.Schema) > 0 {
		without = bytes.Clone(t.Schema)
		if ms, err := jsonobj.Members(t.Schema); err == nil {
			without = jsonobj.Encode(jsonobj.Without(ms, "example", "examples"))
		}
	}
	c := t.Clone()
	c.Example = &Example{Raw: bytes.Clone(raw), Value: v, SchemaWithoutExample: without}
	return c, nil
}

// Compiled reports whether t has a validator: it was built by [NewTypeSpec], or
// it is the zero [TypeSpec], which needs none.
func (t TypeSpec) Compiled() bool { return t.compiled != nil || len(t.Schema) == 0 }

// IsZero reports whether t declares no type.
func (t TypeSpec) IsZero() bool {
	return t.Name == "" && len(t.Schema) == 0 && t.Example == nil && t.compiled == nil
}

// Clone returns a deep copy of t; the compiled schema is shared.
func (t TypeSpec) Clone() TypeSpec {
	t.Schema = bytes.Clone(t.Schema)
	t.Example = t.Example.Clone()
	return t
}

// Validate checks that data is well-formed JSON satisfying t's schema. It
// returns an error wrapping [ErrInvalidJSON] for malformed data, and a
// *ValidationError listing every violation otherwise.
func (t TypeSpec) Validate(data []byte) error {
	_, err := t.Decode(data)
	return err
}

// Decode validates data like [TypeSpec.Validate] and returns it parsed: objects
// as map[string]any, arrays as []any and numbers as [json.Number], so large
// integers stay exact.
func (t TypeSpec) Decode(data []byte) (any, error) {
	if len(t.Schema) > 0 && t.compiled == nil {
		return nil, fmt.Errorf("%w: %s has a schema but no validator: build it with tools.NewTypeSpec", ErrNotCompiled, t.describe())
	}
	v, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if t.compiled == nil {
		return v, nil
	}
	if err := t.compiled.validate(v); err != nil {
		return nil, err
	}
	return v, nil
}

func (t TypeSpec) describe() string {
	if t.Name != "" {
		return "type " + t.Name
	}
	return "type"
}

// JSONError reports data that is not one well-formed JSON value. It matches
// [ErrInvalidJSON] with [errors.Is].
type JSONError struct {
	// Offset is the byte offset of the problem.
	Offset int64
	// Problem says what is wrong there.
	Problem string
}

// Error returns "tools: invalid JSON at offset N: problem".
func (e *JSONError) Error() string {
	return fmt.Sprintf("tools: invalid JSON at offset %d: %s", e.Offset, e.Problem)
}

// Is reports whether target is [ErrInvalidJSON].
func (e *JSONError) Is(target error) bool { return target == ErrInvalidJSON }

// parseJSON parses exactly one JSON value with json.Number numbers. Errors
// are *JSONError values naming the offset of the offending byte.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF):
			return nil, &JSONError{Offset: 0, Problem: "empty input: send a JSON value such as {}"}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &JSONError{Offset: int64(len(data)), Problem: "unexpected end of input: the value is incomplete"}
		case errors.As(err, &se):
			return nil, &JSONError{Offset: max(se.Offset-1, 0), Problem: se.Error()}
		default:
			return nil, &JSONError{Offset: dec.InputOffset(), Problem: err.Error()}
		}
	}
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return nil, &JSONError{Offset: int64(len(data) - len(rest)), Problem: "unexpected data after the top-level value: send exactly one JSON value"}
	}
	return v, nil
}

// cloneJSONValue deep-copies a value produced by parseJSON or
// encoding/json.
func cloneJSONValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = cloneJSONValue(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = cloneJSONValue(e)
		}
		return s
	default:
		return v
	}
}
