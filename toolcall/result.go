package toolcall

import (
	"encoding/json"

	"github.com/quiver-go/quiver/tools"
)

// Result is what an executor returns for one call: a result or a failure,
// with the bounds of a bounded result and server-only data.
type Result struct {
	// Result is the result JSON (before bounds projection).
	Result json.RawMessage `json:"result,omitempty"`
	// Bounds must be set by a successful bounded tool (or written in the
	// result's canonical fields: [BoundsFromResult]).
	Bounds *Bounds `json:"bounds,omitempty"`
	// ServerData are server-only outputs; they never reach a model.
	ServerData []ServerData `json:"server_data,omitempty"`
	// Failure is set when the call failed.
	Failure *Failure `json:"failure,omitempty"`
	// DisplayHint, when set by the producer, is never overwritten.
	DisplayHint string `json:"display_hint,omitempty"`
}

// Bounds describe a bounded result: a view on a larger set.
type Bounds struct {
	Returned       int    `json:"returned"`
	Total          *int   `json:"total,omitempty"`
	Truncated      bool   `json:"truncated"`
	NextCursor     string `json:"next_cursor,omitempty"`
	RefinementHint string `json:"refinement_hint,omitempty"`
}

// ServerData is one server-only output of a tool; never sent to a model.
type ServerData struct {
	Kind     string          `json:"kind"`
	Audience tools.Audience  `json:"audience"`
	Data     json.RawMessage `json:"data"`
}
