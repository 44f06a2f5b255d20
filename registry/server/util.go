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

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
