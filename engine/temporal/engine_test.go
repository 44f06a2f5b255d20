package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/temporal"
)

// contractEngine returns a worker engine with one workflow, "wf", running
// body, and the activities given.
func contractEngine(t *testing.T, opts temporal.Options, body engine.WorkflowFunc, activities ...engine.ActivityDefinition) *temporal.Engine {
	t.Helper()
	e := newWorker(t, newQueue(t), opts)
	if err := e.RegisterWorkflow(engine.WorkflowDefinition{Name: "wf", Handler: body}); err != nil {
		t.Fatal(err)
	}
	for _, a := range activities {
		if err := e.RegisterActivity(a); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// runWF starts "wf" on e and waits for it.
func runWF(t *testing.T, e *temporal.Engine, input string) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := e.StartWorkflow(ctx, engine.StartRequest{ID: "wf-" + newQueue(t), Workflow: "wf", Input: json.RawMessage(input)})
	if err != nil {
		t.Fatal(err)
	}
	return h.Wait(ctx)
}

// Bytes cross the engine as they were marshalled: nothing escapes "<".
func TestValuesCrossByteForByte(t *testing.T) {
	t.Parallel()
	echo := engine.Activity("echo", engine.ActivityOptions{}, func(_ context.Context, in map[string]string) (map[string]string, error) {
		in["seen"] = "a <= b & c"
		return in, nil
	})
	e := contractEngine(t, temporal.Options{}, func(wctx engine.WorkflowContext, in json.RawMessage) (json.RawMessage, error) {
		var out json.RawMessage
		err := wctx.ExecuteActivity("echo", engine.ActivityOptions{}, in, &out)
		return out, err
	}, echo)
	out, err := runWF(t, e, `{"limit":"must be <= 100"}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"limit":"must be <= 100","seen":"a <= b & c"}`; string(out) != want {
		t.Fatalf("output %s, want %s", out, want)
	}
}

// An activity's failures reach workflow code as *engine.ActivityError:
// an error with its message and non-retryable flag, a timeout satisfying
// errors.Is(err, engine.ErrTimeout), a panic of type "panic".
func TestActivityFailuresKeepTheirKind(t *testing.T) {
	t.Parallel()
	var attempts atomic.Int32
	fails := engine.ActivityDefinition{Name: "fails", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		attempts.Add(1)
		return nil, engine.NewNonRetryableError(errors.New("card declined"))
	}}
	hangs := engine.ActivityDefinition{Name: "hangs", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	panics := engine.ActivityDefinition{Name: "panics", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		panic("boom")
	}}
	type report struct {
		Type, Message         string
		NonRetryable, Timeout bool
	}
	e := contractEngine(t, temporal.Options{}, func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
		var reports []report
		for _, name := range []string{"fails", "hangs", "panics"} {
			err := wctx.ExecuteActivity(name, engine.ActivityOptions{StartToCloseTimeout: 300 * time.Millisecond, Retry: engine.RetryPolicy{MaxAttempts: 3, InitialInterval: 10 * time.Millisecond}}, nil, nil)
			var ae *engine.ActivityError
			if !errors.As(err, &ae) {
				return nil, errors.New("not an *engine.ActivityError: " + err.Error())
			}
			reports = append(reports, report{ae.Type, ae.Message, ae.NonRetryable, errors.Is(err, engine.ErrTimeout)})
		}
		return engine.Marshal(reports)
	}, fails, hangs, panics)
	out, err := runWF(t, e, `null`)
	if err != nil {
		t.Fatal(err)
	}
	var got []report
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got[0] != (report{"error", "card declined", true, false}) {
		t.Errorf("non-retryable error reported %+v", got[0])
	}
	if got[1].Type != "timeout" || !got[1].Timeout {
		t.Errorf("timeout reported %+v", got[1])
	}
	if got[2].Type != "panic" || !strings.Contains(got[2].Message, "boom") {
		t.Errorf("panic reported %+v", got[2])
	}
	if n := attempts.Load(); n != 1 {
		t.Errorf("a non-retryable failure was attempted %d times", n)
	}
}

// The adapter's retry policy wins over the runtime's ask: three attempts
// where the workflow asked for one.
func TestActivityDefaultsRetryPolicyWins(t *testing.T) {
	t.Parallel()
	var attempts atomic.Int32
	flaky := engine.ActivityDefinition{Name: "flaky", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		if n := attempts.Add(1); int(n) != engine.ActivityAttempt(ctx) || n < 3 {
			return nil, errors.New("not yet")
		}
		return json.RawMessage(`"ok"`), nil
	}}
	e := contractEngine(t, temporal.Options{ActivityDefaults: temporal.ActivityDefaults{
		RetryPolicy: &sdktemporal.RetryPolicy{MaximumAttempts: 3, InitialInterval: 10 * time.Millisecond},
	}}, func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
		var out json.RawMessage
		err := wctx.ExecuteActivity("flaky", engine.ActivityOptions{}, nil, &out)
		return out, err
	}, flaky)
	out, err := runWF(t, e, `null`)
	if err != nil || string(out) != `"ok"` {
		t.Fatalf("workflow = %s, %v", out, err)
	}
	if n := attempts.Load(); n != 3 {
		t.Fatalf("%d attempts, want 3", n)
	}
}

// Cancelling a workflow stops it where it waits, cancels its running
// activity (through heartbeats) and its child; Wait reports
// engine.ErrCanceled.
func TestCancelReachesActivitiesAndChildren(t *testing.T) {
	t.Parallel()
	activityCanceled := make(chan struct{})
	started := make(chan struct{}, 2)
	hangs := engine.ActivityDefinition{Name: "hangs", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		started <- struct{}{}
		<-ctx.Done()
		close(activityCanceled)
		return nil, ctx.Err()
	}}
	childCanceled := make(chan bool, 1)
	e := contractEngine(t, temporal.Options{}, func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
		err := wctx.ExecuteChild("", "child", engine.ChildOptions{}, nil, nil)
		return nil, err
	}, hangs)
	// Registered before the worker starts (at the first StartWorkflow).
	if err := e.RegisterWorkflow(engine.WorkflowDefinition{Name: "child", Handler: func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
		err := wctx.ExecuteActivity("hangs", engine.ActivityOptions{StartToCloseTimeout: time.Minute}, nil, nil)
		if !wctx.IsReplaying() {
			childCanceled <- errors.Is(err, engine.ErrCanceled) && wctx.Context().Err() != nil
		}
		return nil, err
	}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := e.StartWorkflow(ctx, engine.StartRequest{ID: "wf-" + newQueue(t), Workflow: "wf"})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if err := h.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(ctx); !errors.Is(err, engine.ErrCanceled) {
		t.Fatalf("Wait = %v, want engine.ErrCanceled", err)
	}
	if ok := <-childCanceled; !ok {
		t.Fatal("the child did not see its cancellation")
	}
	select {
	case <-activityCanceled:
	case <-ctx.Done():
		t.Fatal("the activity was never cancelled")
	}
}

// A child past its ChildOptions.Timeout fails its parent's call with an
// error wrapping context.DeadlineExceeded; its id derives from the
// parent's when none is given.
func TestChildTimeoutAndIDs(t *testing.T) {
	t.Parallel()
	e := contractEngine(t, temporal.Options{}, func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
		var id string
		if err := wctx.ExecuteChild("", "child", engine.ChildOptions{}, "quick", &id); err != nil {
			return nil, err
		}
		err := wctx.ExecuteChild("", "child", engine.ChildOptions{Timeout: time.Second}, "slow", nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			return nil, errors.New("slow child: " + err.Error())
		}
		return engine.Marshal([]string{wctx.WorkflowID(), id})
	})
	if err := e.RegisterWorkflow(engine.WorkflowDefinition{Name: "child", Handler: func(wctx engine.WorkflowContext, in json.RawMessage) (json.RawMessage, error) {
		if string(in) == `"slow"` {
			if err := wctx.Sleep(time.Minute); err != nil {
				return nil, err
			}
		}
		return engine.Marshal(wctx.WorkflowID())
	}}); err != nil {
		t.Fatal(err)
	}
	out, err := runWF(t, e, `null`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := json.Unmarshal(out, &ids); err != nil {
		t.Fatal(err)
	}
	if ids[1] != ids[0]+"/1" {
		t.Fatalf("child id %q of parent %q, want <parent>/1", ids[1], ids[0])
	}
}

// A workflow past its StartRequest.Timeout ends with an error wrapping
// context.DeadlineExceeded.
func TestWorkflowTimeout(t *testing.T) {
	t.Parallel()
	e := contractEngine(t, temporal.Options{}, func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
		return nil, wctx.Sleep(time.Minute)
	})
	ctx := context.Background()
	h, err := e.StartWorkflow(ctx, engine.StartRequest{ID: "wf-" + newQueue(t), Workflow: "wf", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want context.DeadlineExceeded", err)
	}
}

// Misuse is refused with errors that say what to do.
func TestMisuseIsRefused(t *testing.T) {
	t.Parallel()
	c := testClient
	if _, err := temporal.NewWorker(nil, "q", temporal.Options{}); err == nil || !strings.Contains(err.Error(), "client.Dial") {
		t.Errorf("nil client: %v", err)
	}
	if _, err := temporal.NewWorker(c, "", temporal.Options{}); err == nil || !strings.Contains(err.Error(), "task queue") {
		t.Errorf("no queue: %v", err)
	}
	if _, err := temporal.NewWorker(c, "q", temporal.Options{ActivityDefaults: temporal.ActivityDefaults{HeartbeatTimeout: -time.Second}}); err == nil || !strings.Contains(err.Error(), "HeartbeatTimeout") {
		t.Errorf("negative heartbeat: %v", err)
	}
	e := contractEngine(t, temporal.Options{}, func(engine.WorkflowContext, json.RawMessage) (json.RawMessage, error) { return nil, nil })
	if err := e.RegisterWorkflow(engine.WorkflowDefinition{Name: "wf", Handler: func(engine.WorkflowContext, json.RawMessage) (json.RawMessage, error) { return nil, nil }}); !errors.Is(err, engine.ErrAlreadyRegistered) {
		t.Errorf("second registration: %v", err)
	}
	if _, err := e.StartWorkflow(context.Background(), engine.StartRequest{ID: "x", Workflow: "nope"}); !errors.Is(err, engine.ErrUnknownWorkflow) {
		t.Errorf("unknown workflow: %v", err)
	}
	if err := e.RegisterActivity(engine.ActivityDefinition{Name: "late", Handler: noop}); err == nil || !strings.Contains(err.Error(), "before Start") {
		t.Errorf("registration after start: %v", err)
	}
}

// A change to workflow code guarded by GetVersion replays the histories
// recorded before it; the same change unguarded does not.
func TestGetVersionKeepsOldHistoriesReplayable(t *testing.T) {
	t.Parallel()
	step := func(name string) engine.ActivityDefinition {
		return engine.ActivityDefinition{Name: name, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
	}
	rec := &recorder{Engine: contractEngine(t, temporal.Options{}, func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
		return nil, wctx.ExecuteActivity("a", engine.ActivityOptions{}, nil, nil)
	}, step("a"), step("b"))}
	ctx := context.Background()
	h, err := rec.StartWorkflow(ctx, engine.StartRequest{ID: "wf-" + newQueue(t), Workflow: "wf"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	changed := func(guarded bool) *temporal.Engine {
		e, err := temporal.NewStarter(testClient, "unused", temporal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []engine.ActivityDefinition{step("a"), step("b")} {
			if err := e.RegisterActivity(a); err != nil {
				t.Fatal(err)
			}
		}
		err = e.RegisterWorkflow(engine.WorkflowDefinition{Name: "wf", Handler: func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
			if !guarded || wctx.GetVersion("b-before-a", engine.DefaultVersion, 1) == 1 {
				if err := wctx.ExecuteActivity("b", engine.ActivityOptions{}, nil, nil); err != nil {
					return nil, err
				}
			}
			return nil, wctx.ExecuteActivity("a", engine.ActivityOptions{}, nil, nil)
		}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for id, hist := range rec.histories(t) {
		if err := changed(true).ReplayHistory(quiet, hist); err != nil {
			t.Errorf("guarded change, replay of %s: %v", id, err)
		}
		if err := changed(false).ReplayHistory(quiet, hist); err == nil || !strings.Contains(err.Error(), "TMPRL1100") {
			t.Errorf("unguarded change, replay of %s: %v, want a non-determinism error", id, err)
		}
	}
}
