package engine

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Marshal encodes v as JSON the way every engine boundary should: like
// json.Marshal but without escaping <, > and & — tool results and errors
// that a model reads cross engines verbatim (a teaching error says
// "limit: must be <= 100", not "\u003c=").
func Marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// errInvalidJSON reports an output that is not valid JSON.
var errInvalidJSON = errors.New("output is not valid JSON")

// Unmarshal decodes an activity's or child workflow's output into out,
// or only checks that it is JSON when out is nil, as every engine does for
// ExecuteActivity and ExecuteChild. An empty output reads as null.
func Unmarshal(raw []byte, out any) error {
	if len(raw) == 0 {
		raw = []byte("null")
	}
	if out == nil {
		if !json.Valid(raw) {
			return errInvalidJSON
		}
		return nil
	}
	return json.Unmarshal(raw, out)
}
