package inmem_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
)

// startAndCancel starts name, waits for started to be closed, cancels the
// workflow and returns Wait's error.
func startAndCancel(t *testing.T, e *inmem.Engine, name string, started <-chan struct{}) error {
	t.Helper()
	h, err := engine.Start(context.Background(), e, "", name, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = h.Wait(ctx)
	return err
}

func TestCancelDuringActivityCancelsItsContext(t *testing.T) {
	e := inmem.New()
	started := make(chan struct{})
	activityCanceled := make(chan struct{})
	register(t, e,
		engine.ActivityDefinition{Name: "long", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			close(started)
			<-ctx.Done()
			close(activityCanceled)
			return nil, ctx.Err()
		}},
		workflow("cancel-activity", func(wctx engine.WorkflowContext) error {
			err := wctx.ExecuteActivity("long", engine.ActivityOptions{Retry: engine.RetryPolicy{MaxAttempts: 5}}, nil, nil)
			var ae *engine.ActivityError
			if !errors.As(err, &ae) || ae.Type != "canceled" {
				return errors.New("want a canceled ActivityError, got " + errString(err))
			}
			if later := wctx.ExecuteActivity("long", engine.ActivityOptions{}, nil, nil); !errors.Is(later, engine.ErrCanceled) {
				return errors.New("later activity: " + errString(later))
			}
			if later := wctx.Sleep(time.Hour); !errors.Is(later, engine.ErrCanceled) {
				return errors.New("later sleep: " + errString(later))
			}
			return err
		}),
	)
	if err := startAndCancel(t, e, "cancel-activity", started); !errors.Is(err, engine.ErrCanceled) {
		t.Fatalf("Wait = %v", err)
	}
	<-activityCanceled
}

func TestCancelDuringSleep(t *testing.T) {
	e := inmem.New()
	started := make(chan struct{})
	register(t, e, workflow("sleeper", func(wctx engine.WorkflowContext) error {
		if err := wctx.Sleep(time.Millisecond); err != nil {
			return err
		}
		close(started)
		return wctx.Sleep(time.Hour)
	}))
	if err := startAndCancel(t, e, "sleeper", started); !errors.Is(err, engine.ErrCanceled) {
		t.Fatalf("Wait = %v", err)
	}
}

func TestCancelParentCancelsChild(t *testing.T) {
	e := inmem.New()
	started := make(chan struct{})
	childDone := make(chan error, 1)
	register(t, e,
		workflow("child", func(wctx engine.WorkflowContext) error {
			close(started)
			err := wctx.Sleep(time.Hour)
			childDone <- err
			return err
		}),
		workflow("parent", func(wctx engine.WorkflowContext) error {
			return wctx.ExecuteChild("", "child", engine.ChildOptions{}, nil, nil)
		}),
	)
	if err := startAndCancel(t, e, "parent", started); !errors.Is(err, engine.ErrCanceled) {
		t.Fatalf("parent Wait = %v", err)
	}
	if err := <-childDone; !errors.Is(err, engine.ErrCanceled) {
		t.Fatalf("child Sleep = %v", err)
	}
}

func TestChildWorkflowRoundTripAndDerivedIDs(t *testing.T) {
	e := inmem.New()
	type in struct {
		N int    `json:"n"`
		F func() `json:"-"`
	}
	register(t, e,
		engine.Workflow("square", func(wctx engine.WorkflowContext, v in) ([]any, error) {
			return []any{wctx.WorkflowID(), v.N * v.N}, nil
		}),
		engine.Workflow("fails", func(engine.WorkflowContext, struct{}) (int, error) {
			return 0, engine.ErrCanceled // any error the runtime branches on
		}),
		engine.Workflow("parent", func(wctx engine.WorkflowContext, _ struct{}) ([][]any, error) {
			var outs [][]any
			for _, id := range []string{"", "", "named"} {
				out, err := engine.ExecuteChild[[]any](wctx, id, "square", engine.ChildOptions{}, in{N: 3, F: func() {}})
				if err != nil {
					return nil, err
				}
				outs = append(outs, out)
			}
			if err := wctx.ExecuteChild("", "fails", engine.ChildOptions{}, nil, nil); !errors.Is(err, engine.ErrCanceled) {
				return nil, errors.New("child error lost: " + errString(err))
			}
			return outs, nil
		}),
	)
	h, err := e.StartWorkflow(context.Background(), engine.StartRequest{ID: "p", Workflow: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := `[["p/1",9],["p/2",9],["named",9]]`; string(out) != want {
		t.Fatalf("output = %s, want %s", out, want)
	}
}

func TestWorkflowTimeoutEndsWaitWithDeadlineExceeded(t *testing.T) {
	e := inmem.New()
	opErr := make(chan error, 1)
	register(t, e, workflow("too-slow", func(wctx engine.WorkflowContext) error {
		err := wctx.Sleep(time.Hour)
		opErr <- err
		return err
	}))
	start := time.Now()
	h, err := e.StartWorkflow(context.Background(), engine.StartRequest{Workflow: "too-slow", Timeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Wait(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("Wait = %v", err)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Fatalf("took %s", elapsed)
	}
	if err := <-opErr; !errors.Is(err, engine.ErrCanceled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sleep past the workflow timeout = %v", err)
	}
}

func TestWorkflowTimeoutWhenWorkflowIgnoresIt(t *testing.T) {
	e := inmem.New()
	block := make(chan struct{})
	defer close(block)
	register(t, e, workflow("deaf", func(engine.WorkflowContext) error {
		<-block
		return nil
	}))
	h, err := e.StartWorkflow(context.Background(), engine.StartRequest{ID: "deaf-1", Workflow: "deaf", Timeout: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v", err)
	}
}

func TestWorkflowPanicIsRecovered(t *testing.T) {
	e := inmem.New()
	register(t, e, workflow("panics", func(engine.WorkflowContext) error {
		panic("workflow bug")
	}))
	_, err := run(t, e, "panics", nil)
	var pe *inmem.PanicError
	if !errors.As(err, &pe) || pe.Value != "workflow bug" || len(pe.Stack) == 0 || !strings.Contains(err.Error(), "workflow bug") {
		t.Fatalf("Wait = %v", err)
	}
}

func TestCancelBeforeWorkflowRunsFailsItsFirstOperation(t *testing.T) {
	e := inmem.New()
	gate := make(chan struct{})
	register(t, e, workflow("gated", func(wctx engine.WorkflowContext) error {
		<-gate
		return wctx.ExecuteChild("", "gated", engine.ChildOptions{}, nil, nil)
	}))
	h, err := engine.Start(context.Background(), e, "", "gated", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if _, err := h.Wait(context.Background()); !errors.Is(err, engine.ErrCanceled) {
		t.Fatalf("Wait = %v", err)
	}
}

// TestChildTimeoutStopsTheChild: ChildOptions.Timeout ends a child that
// runs longer, the parent's call returns context.DeadlineExceeded, and
// the child saw its context end.
func TestChildTimeoutStopsTheChild(t *testing.T) {
	e := inmem.New()
	childEnded := make(chan error, 1)
	register(t, e,
		workflow("slow", func(wctx engine.WorkflowContext) error {
			<-wctx.Context().Done()
			childEnded <- context.Cause(wctx.Context())
			return wctx.Context().Err()
		}),
		workflow("parent", func(wctx engine.WorkflowContext) error {
			err := wctx.ExecuteChild("", "slow", engine.ChildOptions{Timeout: 50 * time.Millisecond}, nil, nil)
			if !errors.Is(err, context.DeadlineExceeded) {
				return errors.New("child error = " + errString(err) + ", want context.DeadlineExceeded")
			}
			return nil
		}),
	)
	h, err := e.StartWorkflow(context.Background(), engine.StartRequest{Workflow: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-childEnded:
		if !errors.Is(cause, context.DeadlineExceeded) {
			t.Fatalf("the child's context ended with %v", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the child never saw its context end")
	}
}
