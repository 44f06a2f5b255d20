package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/quiver-go/quiver/runtime"
)

// printer writes the events a client receives as a person follows them,
// as they arrive: one line per event, prefixed with its sequence number,
// except that the pieces of the model's text, and of each call it forms,
// are appended to one line, which says which events it took when it ends.
type printer struct {
	w io.Writer
	// open is what the current line appends ("" when none is open): the
	// text of a step's attempt, or one forming call.
	open string
	// first and last are the sequence numbers of the open line's first
	// and last events.
	first, last int64
	// cut is the line a note interrupted: when its pieces go on, the
	// line that takes them up says it continues.
	cut string
}

// event prints e.
func (p *printer) event(e runtime.Event) {
	h := e.Head()
	switch e := e.(type) {
	case runtime.TextDelta:
		p.appendTo(fmt.Sprintf("text %d/%d", h.Step, h.Attempt), h.Seq, "the model writes: ", e.Text)
	case runtime.ToolCallStreaming:
		p.appendTo("call "+h.CallID, h.Seq, "the model forms a call of "+e.Tool+": ", e.ArgumentsDelta)
	default:
		p.endLine()
		fmt.Fprintf(p.w, "%4d %s\n", h.Seq, describe(e))
	}
}

// appendTo appends piece to the line key names, opening it with label
// when another line, or none, is open.
func (p *printer) appendTo(key string, seq int64, label, piece string) {
	if p.open != key {
		p.endLine()
		if key == p.cut {
			label = "(continued) " + label
		}
		p.open, p.first, p.cut = key, seq, ""
		fmt.Fprintf(p.w, "%4d %s", seq, label)
	}
	p.last = seq
	fmt.Fprint(p.w, piece)
}

// endLine ends the open line, if any.
func (p *printer) endLine() {
	if p.open == "" {
		return
	}
	if p.last > p.first {
		fmt.Fprintf(p.w, "   (events %d-%d)", p.first, p.last)
	}
	fmt.Fprintln(p.w)
	p.open = ""
}

// note prints a line of the program's own, after the open line.
func (p *printer) note(format string, args ...any) {
	if p.open != "" {
		p.cut = p.open
	}
	p.endLine()
	fmt.Fprintf(p.w, format+"\n", args...)
}

// describe says in a few words what an event that is not a piece of the
// model's answer reports.
func describe(e runtime.Event) string {
	switch e := e.(type) {
	case runtime.RunStarted:
		return fmt.Sprintf("run %s started (agent %s)", e.RunID, e.Agent)
	case runtime.StreamUsage:
		return fmt.Sprintf("the model's request completed: %s", tokens(e.Usage.InputTokens, e.Usage.OutputTokens))
	case runtime.Planned:
		if len(e.ToolCalls) > 0 {
			return fmt.Sprintf("step %d planned: call %s", e.Step, strings.Join(e.ToolCalls, ", "))
		}
		return fmt.Sprintf("step %d planned: the answer", e.Step)
	case runtime.UsageReported:
		return fmt.Sprintf("step %d used %s", e.Step, tokens(e.Usage.InputTokens, e.Usage.OutputTokens))
	case runtime.ToolCallScheduled:
		return fmt.Sprintf("scheduled %s %s", e.Tool, e.Payload)
	case runtime.ToolProgress:
		if e.Total > 0 {
			return fmt.Sprintf("progress of %s: %g/%g, %s", e.Tool, e.Progress.Progress, e.Total, e.Message)
		}
		return fmt.Sprintf("progress of %s: %g, %s", e.Tool, e.Progress.Progress, e.Message)
	case runtime.ToolResultReceived:
		if e.Failure != nil {
			return fmt.Sprintf("result of %s: failed: %s", e.Tool, e.Failure.Message)
		}
		return fmt.Sprintf("result of %s: %s", e.Tool, e.Result)
	case runtime.RunCompleted:
		return fmt.Sprintf("run completed (%s)", e.Reason)
	case runtime.RunFailed:
		return "run failed: " + e.Error
	}
	return string(e.Type())
}

// tokens says how many tokens a request took and gave.
func tokens(in, out int) string {
	return fmt.Sprintf("%d input, %d output tokens", in, out)
}
