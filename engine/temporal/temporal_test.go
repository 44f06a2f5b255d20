package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// A run with tool calls runs on a Temporal worker: the tools' results
// reach the model byte for byte, its events are in the run log in order,
// and its history replays.
func TestRunWithToolCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := runtime.NewMemoryStore()
	rec := &recorder{Engine: newWorker(t, newQueue(t), temporal.Options{})}
	exec := &orders{}
	rt := newDesk(t, rec, store, exec, runtime.RunPolicy{},
		scripted.Call("getOrder", `{"order_id":"A-1"}`),
		scripted.Call("getOrder", `{"order_id":"B-2"}`),
		scripted.Reply("Both have shipped."))

	out, err := rt.Run(ctx, "desk", ask("Where are A-1 and B-2?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusCompleted || out.Final == nil || out.Final.Text != "Both have shipped." {
		t.Fatalf("run ended %s %s with %+v", out.Status, out.Reason, out.Final)
	}
	want := []string{`{"order_id":"A-1","status":"shipped <= 2 days"}`, `{"order_id":"B-2","status":"shipped <= 2 days"}`}
	if got := toolResults(out.Messages); !slices.Equal(got, want) {
		t.Fatalf("tool results %q, want %q", got, want)
	}
	if n := len(exec.executed()); n != 2 {
		t.Fatalf("%d executions, want 2", n)
	}
	types := eventTypes(t, store.RunLog(), out.RunID)
	if types[0] != string(runtime.EventRunStarted) || types[len(types)-1] != string(runtime.EventRunCompleted) {
		t.Fatalf("events %v", types)
	}
	if n := rec.replayAll(t); n != 1 {
		t.Fatalf("replayed %d histories, want 1", n)
	}
}

// A run suspended for a confirmation holds no worker: with every worker
// stopped, a new worker (a new runtime on the same stores) continues it.
func TestSuspendedRunContinuesOnANewWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := runtime.NewMemoryStore()
	queue := newQueue(t)
	exec := &orders{}

	first := &recorder{Engine: newWorker(t, queue, temporal.Options{})}
	rt1 := newDesk(t, first, store, exec, runtime.RunPolicy{}, scripted.Call("cancelOrder", `{"order_id":"A-1"}`))
	out, err := rt1.Run(ctx, "desk", ask("Cancel A-1."))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusSuspended {
		t.Fatalf("run ended %s, want suspended", out.Status)
	}
	first.Stop()
	_ = rt1.Close()

	second := &recorder{Engine: newWorker(t, queue, temporal.Options{})}
	rt2 := newDesk(t, second, store, exec, runtime.RunPolicy{}, scripted.Reply("A-1 is cancelled."))
	h, err := rt2.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve())
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != runtime.StatusCompleted || done.Final.Text != "A-1 is cancelled." {
		t.Fatalf("continuation ended %s with %+v", done.Status, done.Final)
	}
	if n := len(exec.executed()); n != 1 {
		t.Fatalf("%d executions, want 1", n)
	}
	types := eventTypes(t, store.RunLog(), out.RunID)
	if !slices.Contains(types, string(runtime.EventAwaiting)) || types[len(types)-1] != string(runtime.EventRunCompleted) {
		t.Fatalf("events %v", types)
	}
	first.replayAll(t)
	second.replayAll(t)
}

// A tool attempt that runs past Timing.Tools is retried by the adapter's
// retry policy, and the retry succeeds: the executor ran twice with the
// same tool call id, its idempotency key.
func TestToolAttemptRetriedByThePolicyAfterItsTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := runtime.NewMemoryStore()
	rec := &recorder{Engine: newWorker(t, newQueue(t), temporal.Options{ActivityDefaults: temporal.ActivityDefaults{
		RetryPolicy: &sdktemporal.RetryPolicy{MaximumAttempts: 3, InitialInterval: 50 * time.Millisecond},
	}})}
	exec := &orders{block: func(ctx context.Context, n int) error {
		if n == 1 {
			<-ctx.Done() // the first attempt hangs until its timeout
			return ctx.Err()
		}
		return nil
	}}
	rt := newDesk(t, rec, store, exec, runtime.RunPolicy{Timing: &runtime.Timing{Tools: 500 * time.Millisecond}},
		scripted.Call("getOrder", `{"order_id":"A-1"}`),
		scripted.Reply("A-1 has shipped."))

	out, err := rt.Run(ctx, "desk", ask("Where is A-1?"))
	if err != nil {
		t.Fatal(err)
	}
	if got := toolResults(out.Messages); len(got) != 1 || !strings.Contains(got[0], "shipped") {
		t.Fatalf("tool results %q", got)
	}
	calls := exec.executed()
	if len(calls) != 2 || calls[0] != calls[1] {
		t.Fatalf("executions %q, want two of one call id", calls)
	}
	eventTypes(t, store.RunLog(), out.RunID)
	rec.replayAll(t)
}

// A run whose time budget runs out while a tool works is finalized: the
// tool attempt stops at what the budget had left, and the model's last
// turn ends the run with reason time_budget.
func TestTimeBudgetExhausted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := runtime.NewMemoryStore()
	rec := &recorder{Engine: newWorker(t, newQueue(t), temporal.Options{})}
	exec := &orders{block: func(ctx context.Context, _ int) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	rt := newDesk(t, rec, store, exec, runtime.RunPolicy{Timing: &runtime.Timing{Budget: time.Second}, FinalizerGrace: 10 * time.Second},
		scripted.Call("getOrder", `{"order_id":"A-1"}`),
		scripted.Reply("I ran out of time."))

	out, err := rt.Run(ctx, "desk", ask("Where is A-1?"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonTimeBudget {
		t.Fatalf("run ended %s %s, want completed time_budget", out.Status, out.Reason)
	}
	if got := toolResults(out.Messages); len(got) != 1 || !strings.Contains(got[0], "timeout") {
		t.Fatalf("tool results %q, want a timeout failure", got)
	}
	eventTypes(t, store.RunLog(), out.RunID)
	rec.replayAll(t)
}

// A process that only starts runs (NewStarter) hands them to a worker
// elsewhere; a follower of the run log in the starting process reads the
// run's events as the worker records them, in order, to the end.
func TestFollowerReadsTheEventsOfAWorkerRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := runtime.NewMemoryStore()
	queue := newQueue(t)
	steps := []scripted.Step{scripted.Call("getOrder", `{"order_id":"A-1"}`), scripted.Reply("A-1 has shipped.")}

	worker := &recorder{Engine: newWorker(t, queue, temporal.Options{})}
	workerRT := newDesk(t, worker, store, &orders{}, runtime.RunPolicy{}, steps...)
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	starter, err := temporal.NewStarter(testClient, queue, temporal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	starterRT := newDesk(t, starter, store, &orders{}, runtime.RunPolicy{}, steps...)

	h, err := starterRT.Start(ctx, "desk", ask("Where is A-1?"))
	if err != nil {
		t.Fatal(err)
	}
	var followed []runtime.EventRecord
	err = runtime.FollowRunLog(ctx, store.RunLog(), h.RunID, 0, func(r runtime.EventRecord) error {
		followed = append(followed, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.Final == nil || out.Final.Text != "A-1 has shipped." {
		t.Fatalf("run ended with %+v", out.Final)
	}
	for i, r := range followed {
		if r.Seq != int64(i+1) {
			t.Fatalf("followed event %d has sequence number %d", i+1, r.Seq)
		}
		if r.RunID != h.RunID {
			t.Fatalf("followed an event of run %s", r.RunID)
		}
	}
	if last := followed[len(followed)-1]; last.Type != runtime.EventRunCompleted {
		t.Fatalf("follower ended at %s", last.Type)
	}
	info, err := store.RunLog().Run(ctx, h.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if info.Owner != workerRT.Owner() {
		t.Fatalf("run recorded by %s, want the worker's runtime %s", info.Owner, workerRT.Owner())
	}
	worker.replayAll(t)
}

// The replay check catches workflow code that would decide otherwise than
// a recorded history: here a "quiver.run" that executes a tool before
// planning.
func TestReplayCatchesANonDeterministicChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := &recorder{Engine: newWorker(t, newQueue(t), temporal.Options{})}
	rt := newDesk(t, rec, runtime.NewMemoryStore(), &orders{}, runtime.RunPolicy{},
		scripted.Call("getOrder", `{"order_id":"A-1"}`), scripted.Reply("Shipped."))
	if _, err := rt.Run(ctx, "desk", ask("Where is A-1?")); err != nil {
		t.Fatal(err)
	}
	hs := rec.histories(t)
	if len(hs) != 1 {
		t.Fatalf("%d histories", len(hs))
	}

	changed, err := temporal.NewStarter(testClient, "unused", temporal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"quiver.plan", "quiver.execute_tool", "quiver.record", "quiver.settle"} {
		if err := changed.RegisterActivity(engine.ActivityDefinition{Name: name, Handler: noop}); err != nil {
			t.Fatal(err)
		}
	}
	err = changed.RegisterWorkflow(engine.WorkflowDefinition{Name: "quiver.run", Handler: func(wctx engine.WorkflowContext, in json.RawMessage) (json.RawMessage, error) {
		return nil, wctx.ExecuteActivity("quiver.execute_tool", engine.ActivityOptions{}, in, nil)
	}})
	if err != nil {
		t.Fatal(err)
	}
	for id, h := range hs {
		err := changed.ReplayHistory(quiet, h)
		// TMPRL1100 is the SDK's code for non-determinism.
		if err == nil || !strings.Contains(err.Error(), "TMPRL1100") {
			t.Fatalf("replay of %s with changed code: %v, want a non-determinism error", id, err)
		}
		if err := rec.ReplayHistory(quiet, h); err != nil {
			t.Fatalf("replay of %s with the same code: %v", id, err)
		}
	}
}

func noop(context.Context, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("not run")
}
