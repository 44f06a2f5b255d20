package tools

import (
	"encoding/json"
	"fmt"
)

// Codec converts a tool's typed payload or result to and from JSON.
type Codec[T any] interface {
	// ToJSON encodes v.
	ToJSON(v T) ([]byte, error)
	// FromJSON decodes data.
	FromJSON(data []byte) (T, error)
}

// JSONCodec is a [Codec] that validates against a [TypeSpec]:
// [JSONCodec.FromJSON] checks the schema before unmarshalling, so a model gets
// every violation at once, and [JSONCodec.ToJSON] checks the encoded value, so
// a result that breaks its own schema is an error rather than a surprise
// downstream.
type JSONCodec[T any] struct {
	// Type is the schema the codec validates against.
	Type TypeSpec
}

// NewJSONCodec returns a [JSONCodec] validating against t.
func NewJSONCodec[T any](t TypeSpec) JSONCodec[T] { return JSONCodec[T]{Type: t} }

// ToJSON marshals v with encoding/json and validates the result. Violations
// are returned as a *ValidationError wrapped with the type's name.
func (c JSONCodec[T]) ToJSON(v T) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("tools: encode %s: %w", c.Type.describe(), err)
	}
	if err := c.Type.Validate(data); err != nil {
		return nil, fmt.Errorf("tools: encoded %s breaks its schema: %w", c.Type.describe(), err)
	}
	return data, nil
}

// FromJSON validates data against the schema, then unmarshals it into a T
// with [Unmarshal]: keys match fields exactly, duplicates are refused, and
// numbers stay [json.Number] where T holds them as any. Violations are
// returned as a *ValidationError wrapped with the type's name.
func (c JSONCodec[T]) FromJSON(data []byte) (T, error) {
	var v T
	if err := c.Type.Validate(data); err != nil {
		return v, fmt.Errorf("tools: decode %s: %w", c.Type.describe(), err)
	}
	if err := Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("tools: decode %s: %w", c.Type.describe(), err)
	}
	return v, nil
}

// TypedTool is a generated typed descriptor: a tool's spec with codecs for
// its Go payload and result types.
type TypedTool[P, R any] struct {
	// Spec is the tool's contract.
	Spec ToolSpec
	// Payload encodes and decodes the payload type.
	Payload Codec[P]
	// Result encodes and decodes the result type.
	Result Codec[R]
}

// Ident returns the tool's ident.
func (t TypedTool[P, R]) Ident() Ident { return t.Spec.Name }
