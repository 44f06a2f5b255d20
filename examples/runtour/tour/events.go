package tour

import (
	"fmt"
	"io"
	"strings"

	"github.com/quiver-go/quiver/runtime"
)

// printEvent writes one event as a line a person can follow.
func printEvent(w io.Writer, e runtime.Event) {
	switch e := e.(type) {
	case runtime.RunStarted:
		if e.Continued {
			fmt.Fprintf(w, "· run %s continues\n", e.RunID)
		} else {
			fmt.Fprintf(w, "· run %s starts (agent %s)\n", e.RunID, e.Agent)
		}
	case runtime.Planned:
		if len(e.ToolCalls) > 0 {
			fmt.Fprintf(w, "· step %d: the model calls %s\n", e.Step, strings.Join(e.ToolCalls, ", "))
		} else {
			fmt.Fprintf(w, "· step %d: the model answers\n", e.Step)
		}
	case runtime.ToolCallScheduled:
		fmt.Fprintf(w, "  → %s %s\n", e.DisplayHint, e.Payload)
	case runtime.ToolResultReceived:
		switch {
		case e.Failure != nil:
			fmt.Fprintf(w, "  ✗ %s failed: %s\n", e.Tool, e.Failure.Message)
		case e.Bounds != nil:
			fmt.Fprintf(w, "  ← %s: %d returned, truncated=%v; the model sees %s\n", e.Tool, e.Bounds.Returned, e.Bounds.Truncated, e.Result)
		default:
			hint := e.DisplayHint
			if hint == "" {
				hint = string(e.Tool)
			}
			fmt.Fprintf(w, "  ← %s: %s\n", hint, e.Result)
		}
	case runtime.Awaiting:
		fmt.Fprintf(w, "· waiting for %s\n", e.Pending[0].Kind)
	case runtime.RunCompleted:
		fmt.Fprintf(w, "· run %s completed (%s)\n", e.RunID, e.Reason)
	}
}
