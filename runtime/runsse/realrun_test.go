package runsse

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// TestFollowARealRun: a client follows a run from before it starts; the
// run suspends for a confirmation, the stream stays, the approval
// continues it, and the stream ends after run_completed. What the client
// received is the run log's record of the run, event for event.
func TestFollowARealRun(t *testing.T) {
	ctx := context.Background()
	log := newWatchedLog()
	rt, err := runtime.New(runtime.WithRunLog(log), runtime.WithModel(model.ModelClassDefault, scripted.New(
		scripted.Call("cancelOrder", `{"order_id":"A-1"}`),
		scripted.Reply("Order A-1 is cancelled."),
	)))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{
		Name: "orders",
		Tools: []contract.ToolDeclaration{{
			Name: "cancelOrder", Title: "Cancel order", Description: "Cancel an open order.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`),
			Confirmation: &tools.ConfirmationSpec{PromptTemplate: "Cancel order {{ .order_id }}?"},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	executor := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: executor}); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "desk", Planner: planner.NewStandard(), Uses: []runtime.ToolsetUse{{Toolset: "orders"}}}); err != nil {
		t.Fatal(err)
	}

	// No timing here: the client waits for the run as long as it takes.
	srv, _ := server(t, newHandler(t, log, Options{WaitForRun: 1 << 62}))
	events := make(chan sseFrame, 64)
	failed := make(chan error, 1)
	go func() {
		defer close(events)
		resp, err := get(ctx, srv.URL+"/?run=run-sse-1", "", nil)
		if err != nil {
			failed <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			failed <- errors.New(resp.Status)
			return
		}
		c := newSSEReader(resp.Body)
		for {
			f, err := c.event()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					failed <- err
				}
				return
			}
			events <- f
		}
	}()
	log.waitFor("run-sse-1", 0) // the client waits for the run

	out, err := rt.Run(ctx, "desk", runtime.RunInput{Messages: []model.Message{model.UserMessage("Cancel A-1.")}}, runtime.WithRunID("run-sse-1"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusSuspended {
		t.Fatalf("the run is %s, want suspended for the confirmation", out.Status)
	}
	var got []sseFrame
	for f := range events {
		got = append(got, f)
		if f.Event == string(runtime.EventAwaiting) {
			break
		}
	}
	// The stream is still open: the continuation's events arrive on it.
	h, err := rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve())
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != runtime.StatusCompleted {
		t.Fatalf("the continuation is %s", done.Status)
	}
	for f := range events {
		got = append(got, f)
	}
	select {
	case err := <-failed:
		t.Fatal(err)
	default:
	}
	wantLog(t, log, "run-sse-1", got)
	if last := got[len(got)-1]; last.Event != string(runtime.EventRunCompleted) {
		t.Fatalf("the stream ended after %+v", last)
	}
}
