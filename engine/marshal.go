package engine

import (
	"bytes"
	"encoding/json"
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
