package inmem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
)

// register registers workflows and activities or fails the test.
func register(t testing.TB, e *inmem.Engine, defs ...any) {
	t.Helper()
	for _, d := range defs {
		var err error
		switch d := d.(type) {
		case engine.WorkflowDefinition:
			err = e.RegisterWorkflow(d)
		case engine.ActivityDefinition:
			err = e.RegisterActivity(d)
		default:
			t.Fatalf("register: unexpected %T", d)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// workflow wraps untyped workflow code that needs no input or output.
func workflow(name string, fn func(wctx engine.WorkflowContext) error) engine.WorkflowDefinition {
	return engine.WorkflowDefinition{Name: name, Handler: func(wctx engine.WorkflowContext, _ json.RawMessage) (json.RawMessage, error) {
		return nil, fn(wctx)
	}}
}

// run starts name and waits for it with a test-sized deadline.
func run(t testing.TB, e *inmem.Engine, name string, input any) (json.RawMessage, error) {
	t.Helper()
	h, err := engine.Start(context.Background(), e, "", name, input)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return h.Wait(ctx)
}

type greetIn struct {
	Name  string `json:"name"`
	Times int    `json:"times"`
}

type greetOut struct {
	Lines []string `json:"lines"`
}

func TestTypedRoundTripThroughWorkflowAndActivity(t *testing.T) {
	e := inmem.New()
	register(t, e,
		engine.Activity("greet", engine.ActivityOptions{}, func(_ context.Context, in greetIn) (greetOut, error) {
			var out greetOut
			for i := range in.Times {
				out.Lines = append(out.Lines, fmt.Sprintf("%d: hello %s", i, in.Name))
			}
			return out, nil
		}),
		engine.Workflow("greeter", func(wctx engine.WorkflowContext, in greetIn) (greetOut, error) {
			return engine.ExecuteActivity[greetOut](wctx, "greet", engine.ActivityOptions{}, in)
		}),
	)
	raw, err := run(t, e, "greeter", greetIn{Name: "ada", Times: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got greetOut
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if want := []string{"0: hello ada", "1: hello ada"}; strings.Join(got.Lines, "|") != strings.Join(want, "|") {
		t.Fatalf("lines = %q, want %q", got.Lines, want)
	}
}

func TestRegistrationRejectsDuplicatesEmptyNamesAndNilHandlers(t *testing.T) {
	e := inmem.New()
	noop := func(engine.WorkflowContext) error { return nil }
	act := engine.ActivityDefinition{Name: "a", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
	register(t, e, workflow("w", noop), act)

	err := e.RegisterWorkflow(workflow("w", noop))
	if !errors.Is(err, engine.ErrAlreadyRegistered) || !strings.Contains(err.Error(), `"w"`) {
		t.Fatalf("duplicate workflow: %v", err)
	}
	err = e.RegisterActivity(act)
	if !errors.Is(err, engine.ErrAlreadyRegistered) || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("duplicate activity: %v", err)
	}
	// Workflows and activities have separate name spaces.
	register(t, e, workflow("a", noop))

	for _, err := range []error{
		e.RegisterWorkflow(workflow("", noop)),
		e.RegisterWorkflow(engine.WorkflowDefinition{Name: "nil"}),
		e.RegisterActivity(engine.ActivityDefinition{Handler: act.Handler}),
		e.RegisterActivity(engine.ActivityDefinition{Name: "nil"}),
		e.RegisterActivity(engine.ActivityDefinition{Name: "bad", Handler: act.Handler,
			Options: engine.ActivityOptions{Retry: engine.RetryPolicy{BackoffCoefficient: 0.5}}}),
	} {
		if err == nil || !strings.HasPrefix(err.Error(), "inmem: ") {
			t.Errorf("want an inmem error, got %v", err)
		}
	}
}

func TestUnknownWorkflowAndActivity(t *testing.T) {
	e := inmem.New()
	_, err := e.StartWorkflow(context.Background(), engine.StartRequest{Workflow: "missing"})
	if !errors.Is(err, engine.ErrUnknownWorkflow) {
		t.Fatalf("start unknown workflow: %v", err)
	}
	register(t, e, workflow("calls-missing", func(wctx engine.WorkflowContext) error {
		if err := wctx.ExecuteChild("", "missing", engine.ChildOptions{}, nil, nil); !errors.Is(err, engine.ErrUnknownWorkflow) {
			return fmt.Errorf("child: %v", err)
		}
		return wctx.ExecuteActivity("missing", engine.ActivityOptions{}, nil, nil)
	}))
	_, err = run(t, e, "calls-missing", nil)
	if !errors.Is(err, engine.ErrUnknownActivity) || !strings.Contains(err.Error(), `"missing"`) {
		t.Fatalf("unknown activity: %v", err)
	}
}

func TestStartWorkflowIDs(t *testing.T) {
	e := inmem.New()
	release := make(chan struct{})
	register(t, e, workflow("block", func(wctx engine.WorkflowContext) error {
		<-release
		return nil
	}))
	ctx := context.Background()
	h, err := e.StartWorkflow(ctx, engine.StartRequest{ID: "run-1", Workflow: "block"})
	if err != nil {
		t.Fatal(err)
	}
	if h.ID() != "run-1" {
		t.Fatalf("ID = %q", h.ID())
	}
	if _, err := e.StartWorkflow(ctx, engine.StartRequest{ID: "run-1", Workflow: "block"}); !errors.Is(err, inmem.ErrAlreadyStarted) {
		t.Fatalf("second start with a running id: %v", err)
	}
	g1, err := e.StartWorkflow(ctx, engine.StartRequest{Workflow: "block"})
	if err != nil {
		t.Fatal(err)
	}
	g2, err := e.StartWorkflow(ctx, engine.StartRequest{Workflow: "block"})
	if err != nil {
		t.Fatal(err)
	}
	if g1.ID() == "" || g1.ID() == g2.ID() {
		t.Fatalf("generated ids %q and %q", g1.ID(), g2.ID())
	}
	close(release)
	for _, h := range []engine.WorkflowHandle{h, g1, g2} {
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A finished id may be reused.
	h, err = e.StartWorkflow(ctx, engine.StartRequest{ID: "run-1", Workflow: "block"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.StartWorkflow(ctx, engine.StartRequest{Workflow: "block", Input: json.RawMessage("{")}); err == nil {
		t.Fatal("invalid JSON input accepted")
	}
}

func TestWorkflowContextBasics(t *testing.T) {
	fixed := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	e := inmem.New(inmem.WithClock(func() time.Time { return fixed }))
	type key struct{}
	register(t, e, engine.Workflow("basics", func(wctx engine.WorkflowContext, _ struct{}) (string, error) {
		if wctx.IsReplaying() || !wctx.Now().Equal(fixed) || wctx.Context().Value(key{}) != "v" {
			return "", errors.New("unexpected workflow context")
		}
		return wctx.WorkflowID(), nil
	}))
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	h, err := e.StartWorkflow(ctx, engine.StartRequest{ID: "b-1", Workflow: "basics"})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the start context does not bound the workflow
	out, err := h.Wait(context.Background())
	if err != nil || string(out) != `"b-1"` {
		t.Fatalf("Wait = %s, %v", out, err)
	}
}

func TestWorkflowErrorIsReturnedAsIs(t *testing.T) {
	e := inmem.New()
	sentinel := errors.New("sentinel")
	register(t, e, workflow("fails", func(engine.WorkflowContext) error { return sentinel }))
	if _, err := run(t, e, "fails", nil); err != sentinel {
		t.Fatalf("Wait error = %v, want the workflow's own value", err)
	}
}

func TestManyConcurrentWorkflows(t *testing.T) {
	e := inmem.New(inmem.WithMaxConcurrentActivities(8))
	register(t, e,
		engine.Activity("double", engine.ActivityOptions{}, func(_ context.Context, n int) (int, error) { return 2 * n, nil }),
		engine.Workflow("sum", func(wctx engine.WorkflowContext, n int) (int, error) {
			total := 0
			for i := range n {
				d, err := engine.ExecuteActivity[int](wctx, "double", engine.ActivityOptions{}, i)
				if err != nil {
					return 0, err
				}
				total += d
			}
			return total, nil
		}),
	)
	const workflows = 200
	handles := make([]engine.WorkflowHandle, workflows)
	for i := range handles {
		h, err := engine.Start(context.Background(), e, "", "sum", i%10)
		if err != nil {
			t.Fatal(err)
		}
		handles[i] = h
	}
	for i, h := range handles {
		out, err := h.Wait(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n := i % 10
		if want := fmt.Sprint(n * (n - 1)); string(out) != want {
			t.Fatalf("workflow %d = %s, want %s", i, out, want)
		}
	}
}

func TestWaitFromSeveralGoroutinesAndWithContext(t *testing.T) {
	e := inmem.New()
	release := make(chan struct{})
	register(t, e, engine.Workflow("slow", func(engine.WorkflowContext, struct{}) (string, error) {
		<-release
		return "done", nil
	}))
	h, err := engine.Start(context.Background(), e, "", "slow", struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	if _, err := h.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with an expired ctx: %v", err)
	}
	var wg sync.WaitGroup
	outs := make([]string, 8)
	for i := range outs {
		wg.Go(func() {
			out, err := h.Wait(context.Background())
			if err != nil {
				t.Error(err)
			}
			outs[i] = string(out)
			out[0] = 'X' // each caller owns its copy
		})
	}
	close(release)
	wg.Wait()
	for _, out := range outs {
		if out != `"done"` {
			t.Fatalf("outputs = %q", outs)
		}
	}
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatalf("Cancel of a finished workflow: %v", err)
	}
}

// Nothing replays in memory: GetVersion always answers the newest code.
func TestGetVersionIsTheNewest(t *testing.T) {
	e := inmem.New()
	if err := e.RegisterWorkflow(engine.Workflow("v", func(wctx engine.WorkflowContext, _ struct{}) (int, error) {
		return wctx.GetVersion("change", engine.DefaultVersion, 3), nil
	})); err != nil {
		t.Fatal(err)
	}
	h, err := engine.Start(context.Background(), e, "", "v", struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.Wait(context.Background())
	if err != nil || string(out) != "3" {
		t.Fatalf("GetVersion = %s, %v; want 3", out, err)
	}
}
