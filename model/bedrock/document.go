package bedrock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	smithydoc "github.com/aws/smithy-go/document"
)

// toDocument turns raw JSON into a Smithy document the SDK serializes
// back to the same JSON. Numbers become smithydoc.Number, so they keep
// their text (no float64 rounding); json.RawMessage itself cannot be
// passed, as the SDK would encode the bytes as base64.
func toDocument(raw []byte) (document.Interface, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	return document.NewLazyDocument(v), nil
}

// toObjectDocument is toDocument for a value that must be a JSON object.
func toObjectDocument(raw []byte) (document.Interface, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("want a JSON object")
	}
	return document.NewLazyDocument(v), nil
}

// decodeJSON decodes one JSON value with numbers as smithydoc.Number.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return numbers(v), nil
}

// numbers replaces the json.Number values of v with smithydoc.Number.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return smithydoc.Number(x)
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

// fromDocument renders a document the SDK decoded (a tool call's input) as
// JSON; a missing document is the empty object.
func fromDocument(d document.Interface) ([]byte, error) {
	if d == nil {
		return []byte("{}"), nil
	}
	b, err := d.MarshalSmithyDocument()
	if err != nil {
		return nil, fmt.Errorf("render the document as JSON: %w", err)
	}
	return b, nil
}
