package server

import (
	"encoding/json"
	"fmt"
)

// marshalAny re-encodes a Goa "Any" attribute (decoded with numbers kept as
// written) as JSON.
func marshalAny(v any) ([]byte, error) {
	if v == nil {
		return nil, fmt.Errorf("missing")
	}
	return json.Marshal(v)
}
