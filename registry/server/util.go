package server

import (
	"encoding/json"
	"fmt"
)

// rawAny returns a Goa "Any" attribute as the JSON sent: the front door's
// decoder keeps those values raw (strictDecoder). A value of any other
// type — a Service called directly, not through its handler — is encoded.
func rawAny(v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, fmt.Errorf("missing")
	case json.RawMessage:
		return v, nil
	default:
		return json.Marshal(v)
	}
}

// optString is s as an optional attribute: nil when empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is an optional attribute's value, "" when absent.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
