package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/tools"
)

// cfWriteSpec is ws.write, a tool declaring the seed's confirmation.
func cfWriteSpec(t *testing.T) tools.ToolSpec {
	return newSpec(t, "write",
		withPayload(t, `{"type":"object","properties":{"key":{"type":"string"},"value":{},"note":{"type":"string"}},"required":["key","value"]}`),
		func(s *tools.ToolSpec) {
			s.Confirmation = &tools.ConfirmationSpec{
				Title:                "Confirm change",
				PromptTemplate:       `Approve write: set {{ .key }} to {{ json .value }}{{ with index . "note" }} ({{ . }}){{ end }}`,
				DeniedResultTemplate: `{"summary":"Cancelled","key":{{ json .key }}}`,
			}
		})
}

// cfEngine wraps an engine and counts the run workflows started and the
// ones whose workflow code is executing right now.
type cfEngine struct {
	engine.Engine
	started atomic.Int32
	active  atomic.Int32
}

func newCFEngine() *cfEngine { return &cfEngine{Engine: inmem.New()} }

func (e *cfEngine) RegisterWorkflow(def engine.WorkflowDefinition) error {
	h := def.Handler
	def.Handler = func(wctx engine.WorkflowContext, in json.RawMessage) (json.RawMessage, error) {
		e.active.Add(1)
		defer e.active.Add(-1)
		return h(wctx, in)
	}
	return e.Engine.RegisterWorkflow(def)
}

func (e *cfEngine) StartWorkflow(ctx context.Context, req engine.StartRequest) (engine.WorkflowHandle, error) {
	e.started.Add(1)
	return e.Engine.StartWorkflow(ctx, req)
}

// TestConfirmationNothingWaitsInMemory stays here: it counts the
// workflows a wrapped in-memory engine starts and runs.
func TestConfirmationNothingWaitsInMemory(t *testing.T) {
	eng := newCFEngine()
	f := newFixtureWith(t, AgentRegistration{}, []Option{WithEngine(eng)},
		[]fixtureTool{{spec: cfWriteSpec(t)}},
		scripted.Call("write", `{"key":"k","value":1}`),
		scripted.Reply("done"),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := f.run("write")
	if out.Status != StatusSuspended {
		t.Fatalf("status %s", out.Status)
	}
	// Wait returned: the workflow ended with its checkpoint.
	if a, s := eng.active.Load(), eng.started.Load(); a != 0 || s != 1 {
		t.Fatalf("after suspension: %d workflows executing, %d started; want 0 and 1", a, s)
	}
	if _, err := f.rt.Continue(ctx, "run-that-never-was", PendingInputResponse{Confirmation: &ConfirmationDecision{Approved: true}}); err == nil || !strings.Contains(err.Error(), "run-that-never-was") || !strings.Contains(err.Error(), "not suspended") {
		t.Fatalf("Continue of an unknown run: err = %v", err)
	}
	h, err := f.rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve())
	if err != nil {
		t.Fatal(err)
	}
	// A second answer to the same suspension fails, whether the
	// continuation is still running or not.
	if _, err := f.rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve()); err == nil || !strings.Contains(err.Error(), out.RunID) {
		t.Fatalf("second Continue: err = %v, want a clear failure naming the run", err)
	}
	done, err := h.Wait(ctx)
	if err != nil || done.Status != StatusCompleted {
		t.Fatalf("continuation: %+v, %v", done, err)
	}
	if s := eng.started.Load(); s != 2 {
		t.Fatalf("%d workflows started, want the run and one continuation", s)
	}
	if _, err := f.rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve()); err == nil {
		t.Fatal("Continue of a completed run succeeded")
	}
	if got := f.executed(); len(got) != 1 {
		t.Fatalf("executed %v, want the call once", got)
	}
}
