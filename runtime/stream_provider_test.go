package runtime

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/compat"
)

// These tests put a real adapter (compat, Chat Completions) before the
// local fake provider streaming real server-sent events, held and cut.

// compatOn returns a compat client for the fake (no retries).
func compatOn(t *testing.T, p *providerfake.Server) *compat.Client {
	t.Helper()
	c, err := compat.New(compat.WithBaseURL(p.URL()+"/v1"), compat.WithModel("qwen3-8b"), compat.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAFailedPlanningAttemptOverAProviderIsRetriedAndItsTextIsVoid(t *testing.T) {
	// Attempt 1: the connection drops in the middle of the answer.
	whole := providerfake.ChatStreamEvents(providerfake.ChatReply("Four, as two and two make.", providerfake.Usage{Input: 9, Output: 7}))
	cut := providerfake.Answer{Events: whole[:2], Cut: true}
	p := providerfake.New(t, "/v1/chat/completions", cut, providerfake.OK(providerfake.ChatReply("Four, as two and two make.", providerfake.Usage{Input: 9, Output: 7})))
	f := newFixtureOn(t, AgentRegistration{Policy: RunPolicy{PlanAttempts: 2}}, nil, compatOn(t, p))
	out := f.run("What is two and two?")
	if out.Status != StatusCompleted || out.Final == nil {
		t.Fatalf("out = %+v", out)
	}
	events := evtEvery(f, out.RunID)
	want := []string{"run_started", "text_delta+", "planning_retried", "text_delta+", "stream_usage", "planned", "usage", "run_completed"}
	if got := streamedKinds(events); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events = %v\nwant     %v", got, want)
	}
	if got := textOfStep(events, 1, 2); got != out.Final.Text {
		t.Fatalf("attempt 2's deltas make %q, the run answered %q", got, out.Final.Text)
	}
	if got := textOfStep(events, 1, 1); got == "" || got == out.Final.Text {
		t.Fatalf("attempt 1 streamed %q: want a part of the answer", got)
	}
	if n := len(p.Requests()); n != 2 {
		t.Fatalf("the provider got %d requests, want the attempt and its retry", n)
	}
}

func TestCancellingARunMidStreamStopsTheProviderRequestAndRunsNoCall(t *testing.T) {
	events := providerfake.ChatStreamEvents(providerfake.ChatToolCall("call_1", "lookup", `{"q":"orders","limit":100}`, providerfake.Usage{Input: 5, Output: 9}))
	// Hold everything after the first argument piece: the call is forming.
	hold := make(chan struct{})
	defer close(hold)
	for i := range events {
		if i >= 3 {
			events[i].Wait = hold
		}
	}
	p := providerfake.New(t, "/v1/chat/completions", providerfake.Stream(events...))
	f := newFixtureOn(t, AgentRegistration{}, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}}, compatOn(t, p))
	forming := make(chan struct{}, 1)
	f.rt.Subscribe(func(e Event) {
		if _, ok := e.(ToolCallStreaming); ok {
			select {
			case forming <- struct{}{}:
			default:
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := f.rt.Start(ctx, "assistant", RunInput{Messages: []model.Message{model.UserMessage("look up orders")}}, WithRunID("r-cancel"))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-forming:
	case <-ctx.Done():
		t.Fatal("the call never started forming")
	}
	if err := h.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Gone(0):
	case <-ctx.Done():
		t.Fatal("the provider request was not cancelled")
	}
	if _, err := h.Wait(ctx); err == nil {
		t.Fatal("a cancelled run ended without an error")
	}
	if got := f.executed(); len(got) != 0 {
		t.Fatalf("executed %v: a call cut off while forming must not run", got)
	}
	recs := logOf(t, f.rt, "r-cancel")
	for _, rec := range recs {
		if rec.Type == EventToolCallScheduled {
			t.Fatalf("the forming call was scheduled: %+v", rec)
		}
	}
	if last := recs[len(recs)-1]; last.Type != EventRunCancelled {
		t.Fatalf("the log ends with %s, want run_cancelled", last.Type)
	}
}
