package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/quiver-go/quiver/runtime"
)

// streamPrinter writes what the model streams while the run goes on: each
// search round our code answers, each call as its arguments arrive, the
// answer as it is written. A piece continues the line of the pieces before
// it; anything else starts a line of its own.
type streamPrinter struct {
	w io.Writer

	mu   sync.Mutex
	open string // the label of the line being written, "" when none
}

// follow prints the streamed events of rt's runs until the returned
// function is called, which ends the last line.
func (p *streamPrinter) follow(rt *runtime.Runtime) (stop func()) {
	fmt.Fprintln(p.w, "streamed (as the model writes it):")
	unsubscribe := rt.Subscribe(p.event)
	return func() {
		unsubscribe()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.endLine()
		fmt.Fprintln(p.w)
	}
}

// event prints one event, if the stream shows it.
func (p *streamPrinter) event(e runtime.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := e.(type) {
	case runtime.SearchRound:
		p.endLine()
		found := strings.Join(e.Found, ", ")
		if found == "" {
			found = "nothing"
		}
		fmt.Fprintf(p.w, "  search   %q → %s\n", e.Query, found)
	case runtime.ToolCallStreaming:
		p.piece("call "+e.CallID, fmt.Sprintf("  call     %s ", e.Tool), e.ArgumentsDelta)
	case runtime.TextDelta:
		p.piece(fmt.Sprintf("text %d/%d", e.Step, e.Attempt), "  text     ", e.Text)
	case runtime.PlanningRetried:
		p.endLine()
		fmt.Fprintf(p.w, "  retry    planning attempt %d: what came before is void\n", e.Attempt)
	}
}

// piece writes text on the line labelled label, starting it with head when
// another line was being written.
func (p *streamPrinter) piece(label, head, text string) {
	if p.open != label {
		p.endLine()
		p.open = label
		fmt.Fprint(p.w, head)
	}
	fmt.Fprint(p.w, text)
}

// endLine ends the line being written.
func (p *streamPrinter) endLine() {
	if p.open != "" {
		fmt.Fprintln(p.w)
		p.open = ""
	}
}
