package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/quiver-go/quiver/runtime"
)

// printEvent writes one event as a line a person can follow.
func printEvent(w io.Writer, e runtime.Event) {
	switch e := e.(type) {
	case runtime.Planned:
		if len(e.ToolCalls) > 0 {
			fmt.Fprintf(w, "· step %d: the model calls %s\n", e.Step, strings.Join(e.ToolCalls, ", "))
		} else {
			fmt.Fprintf(w, "· step %d: the model answers\n", e.Step)
		}
	case runtime.ToolCallScheduled:
		fmt.Fprintf(w, "  → %s %s\n", e.DisplayHint, e.Payload)
	case runtime.ToolResultReceived:
		if e.Failure != nil {
			fmt.Fprintf(w, "  ✗ %s: %s\n", e.Tool, e.Failure.Message)
		} else {
			fmt.Fprintf(w, "  ← %s %s\n", e.Tool, e.Result)
		}
	case runtime.Awaiting:
		fmt.Fprintf(w, "· the run waits for a %s; nothing waits in memory\n", e.Pending[0].Kind)
	case runtime.RunCompleted:
		fmt.Fprintf(w, "· run completed (%s)\n", e.Reason)
	}
}
