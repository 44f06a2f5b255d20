package inmem_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
)

// activityCall registers a workflow that runs one activity with opts and
// returns the activity's error.
func activityCall(t *testing.T, e *inmem.Engine, activity string, opts engine.ActivityOptions) error {
	t.Helper()
	name := "call-" + activity
	register(t, e, workflow(name, func(wctx engine.WorkflowContext) error {
		return wctx.ExecuteActivity(activity, opts, nil, nil)
	}))
	_, err := run(t, e, name, nil)
	return err
}

func TestActivityValuesAreSerializedAsJSON(t *testing.T) {
	type secret struct {
		Public  string `json:"public"`
		Private string `json:"-"`
	}
	e := inmem.New()
	register(t, e,
		engine.Activity("leak", engine.ActivityOptions{}, func(context.Context, struct{}) (secret, error) {
			return secret{Public: "p", Private: "kept in memory only"}, nil
		}),
		engine.ActivityDefinition{Name: "raw", Handler: func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
			return in, nil
		}},
		engine.Workflow("serialize", func(wctx engine.WorkflowContext, _ struct{}) (secret, error) {
			err := wctx.ExecuteActivity("raw", engine.ActivityOptions{}, make(chan int), nil)
			if err == nil || !strings.Contains(err.Error(), "encode input") || !strings.HasPrefix(err.Error(), "inmem: ") {
				return secret{}, errors.New("channel input: want an encode error, got " + errString(err))
			}
			var notPointer secret
			if err := wctx.ExecuteActivity("raw", engine.ActivityOptions{}, secret{}, notPointer); err == nil {
				return secret{}, errors.New("decoding into a non-pointer succeeded")
			}
			return engine.ExecuteActivity[secret](wctx, "leak", engine.ActivityOptions{}, struct{}{})
		}),
	)
	raw, err := run(t, e, "serialize", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"public":"p"}` {
		t.Fatalf("output = %s: a json:\"-\" field survived", raw)
	}
}

func TestActivityRetriesUntilSuccess(t *testing.T) {
	e := inmem.New()
	var attempts atomic.Int32
	register(t, e, engine.ActivityDefinition{Name: "flaky", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		if attempts.Add(1) < 3 {
			return nil, errors.New("transient")
		}
		return json.RawMessage(`"ok"`), nil
	}})
	err := activityCall(t, e, "flaky", engine.ActivityOptions{Retry: engine.RetryPolicy{
		MaxAttempts: 5, InitialInterval: time.Millisecond, MaxInterval: 2 * time.Millisecond}})
	if err != nil || attempts.Load() != 3 {
		t.Fatalf("err = %v after %d attempts, want success on the third", err, attempts.Load())
	}
}

func TestActivityRetriesExhaustedReturnsActivityError(t *testing.T) {
	e := inmem.New()
	var attempts atomic.Int32
	register(t, e, engine.ActivityDefinition{Name: "broken",
		Options: engine.ActivityOptions{Retry: engine.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Millisecond}},
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			attempts.Add(1)
			return nil, errors.New("still broken")
		}})
	err := activityCall(t, e, "broken", engine.ActivityOptions{})
	var ae *engine.ActivityError
	if !errors.As(err, &ae) || ae.Type != "error" || ae.Message != "still broken" || ae.Activity != "broken" {
		t.Fatalf("err = %#v", err)
	}
	if attempts.Load() != 3 {
		t.Fatalf("attempts = %d, want the definition's default of 3", attempts.Load())
	}
}

func TestActivityNonRetryableErrorStopsAtOnce(t *testing.T) {
	e := inmem.New()
	var attempts atomic.Int32
	register(t, e, engine.ActivityDefinition{Name: "fatal", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		attempts.Add(1)
		return nil, engine.NewNonRetryableError(errors.New("bad request"))
	}})
	err := activityCall(t, e, "fatal", engine.ActivityOptions{Retry: engine.RetryPolicy{MaxAttempts: 5, InitialInterval: time.Millisecond}})
	var ae *engine.ActivityError
	if !errors.As(err, &ae) || !ae.NonRetryable || ae.Message != "bad request" {
		t.Fatalf("err = %v", err)
	}
	if attempts.Load() != 1 {
		t.Fatalf("attempts = %d, want 1", attempts.Load())
	}
}

func TestActivityAttemptTimeoutEvenWhenHandlerIgnoresContext(t *testing.T) {
	e := inmem.New()
	var attempts atomic.Int32
	block := make(chan struct{})
	defer close(block)
	register(t, e, engine.ActivityDefinition{Name: "stuck", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		attempts.Add(1)
		<-block // ignores its context
		return nil, nil
	}})
	start := time.Now()
	err := activityCall(t, e, "stuck", engine.ActivityOptions{StartToCloseTimeout: 10 * time.Millisecond,
		Retry: engine.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Millisecond}})
	if !errors.Is(err, engine.ErrTimeout) {
		t.Fatalf("errors.Is(err, ErrTimeout) is false for %v", err)
	}
	var ae *engine.ActivityError
	if !errors.As(err, &ae) || ae.Type != "timeout" || ae.Activity != "stuck" {
		t.Fatalf("err = %v, want an ActivityError of type timeout", err)
	}
	if attempts.Load() != 2 {
		t.Fatalf("attempts = %d, want timeouts retried", attempts.Load())
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Fatalf("took %s", elapsed)
	}
}

func TestActivityHonouringContextTimesOut(t *testing.T) {
	e := inmem.New()
	register(t, e, engine.ActivityDefinition{Name: "polite", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	err := activityCall(t, e, "polite", engine.ActivityOptions{StartToCloseTimeout: 5 * time.Millisecond})
	var ae *engine.ActivityError
	if !errors.Is(err, engine.ErrTimeout) || !errors.As(err, &ae) || ae.Type != "timeout" {
		t.Fatalf("err = %v", err)
	}
}

func TestActivityPanicIsRecovered(t *testing.T) {
	e := inmem.New()
	var attempts atomic.Int32
	register(t, e, engine.ActivityDefinition{Name: "explodes", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		attempts.Add(1)
		panic("boom")
	}})
	err := activityCall(t, e, "explodes", engine.ActivityOptions{Retry: engine.RetryPolicy{MaxAttempts: 2, InitialInterval: time.Millisecond}})
	var ae *engine.ActivityError
	if !errors.As(err, &ae) || ae.Type != "panic" || !strings.Contains(ae.Message, "boom") {
		t.Fatalf("err = %v", err)
	}
	if attempts.Load() != 2 {
		t.Fatalf("attempts = %d, want panics retried like errors", attempts.Load())
	}
}

func TestActivityOptionsOverrideDefaultsAndAreValidated(t *testing.T) {
	e := inmem.New()
	var attempts atomic.Int32
	register(t, e, engine.ActivityDefinition{Name: "counted",
		Options: engine.ActivityOptions{Retry: engine.RetryPolicy{MaxAttempts: 4, InitialInterval: time.Millisecond}},
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			attempts.Add(1)
			return nil, errors.New("no")
		}})
	// MaxAttempts comes from the call, InitialInterval from the definition.
	if err := activityCall(t, e, "counted", engine.ActivityOptions{Retry: engine.RetryPolicy{MaxAttempts: 2}}); err == nil || attempts.Load() != 2 {
		t.Fatalf("err = %v, attempts = %d, want 2", err, attempts.Load())
	}
	register(t, e, workflow("invalid-options", func(wctx engine.WorkflowContext) error {
		return wctx.ExecuteActivity("counted", engine.ActivityOptions{StartToCloseTimeout: -1}, nil, nil)
	}))
	_, err := run(t, e, "invalid-options", nil)
	if err == nil || !strings.Contains(err.Error(), "negative StartToCloseTimeout") {
		t.Fatalf("err = %v", err)
	}
}

func TestMaxConcurrentActivitiesBoundsRunningHandlers(t *testing.T) {
	e := inmem.New(inmem.WithMaxConcurrentActivities(2))
	var running, peak atomic.Int32
	register(t, e,
		engine.ActivityDefinition{Name: "busy", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(2 * time.Millisecond)
			running.Add(-1)
			return nil, nil
		}},
		workflow("busy-wf", func(wctx engine.WorkflowContext) error {
			return wctx.ExecuteActivity("busy", engine.ActivityOptions{}, nil, nil)
		}),
	)
	var handles []engine.WorkflowHandle
	for range 10 {
		h, err := engine.Start(context.Background(), e, "", "busy-wf", nil)
		if err != nil {
			t.Fatal(err)
		}
		handles = append(handles, h)
	}
	for _, h := range handles {
		if _, err := h.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if peak.Load() > 2 {
		t.Fatalf("peak concurrency %d, want at most 2", peak.Load())
	}
}

func BenchmarkExecuteActivity(b *testing.B) {
	e := inmem.New()
	register(b, e,
		engine.ActivityDefinition{Name: "noop", Handler: func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
			return in, nil
		}},
		workflow("loop", func(wctx engine.WorkflowContext) error {
			var out int
			for i := range b.N {
				if err := wctx.ExecuteActivity("noop", engine.ActivityOptions{}, i, &out); err != nil {
					return err
				}
			}
			return nil
		}),
	)
	b.ReportAllocs()
	b.ResetTimer()
	h, err := engine.Start(context.Background(), e, "", "loop", nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := h.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestEachAttemptKnowsItsNumber(t *testing.T) {
	e := inmem.New()
	var seen []int
	register(t, e, engine.ActivityDefinition{Name: "flaky", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		seen = append(seen, engine.ActivityAttempt(ctx))
		if len(seen) < 3 {
			return nil, errors.New("not yet")
		}
		return nil, nil
	}})
	err := activityCall(t, e, "flaky", engine.ActivityOptions{Retry: engine.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[0] != 1 || seen[1] != 2 || seen[2] != 3 {
		t.Fatalf("attempts = %v, want [1 2 3]", seen)
	}
	if n := engine.ActivityAttempt(context.Background()); n != 1 {
		t.Fatalf("a context no engine set says attempt %d, want 1", n)
	}
}
