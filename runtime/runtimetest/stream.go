package runtimetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"
)

// streamedKinds names the events of a run, folding runs of one streamed
// type into one name with "+": [run_started text_delta+ …].
func streamedKinds(events []runtime.Event) []string {
	var out []string
	for _, e := range events {
		name := string(e.Type())
		if e.Head().Attempt > 0 && e.Type() != runtime.EventPlanningRetried && e.Type() != runtime.EventStreamUsage {
			name += "+"
			if len(out) > 0 && out[len(out)-1] == name {
				continue
			}
		}
		out = append(out, name)
	}
	return out
}

// textOfStep joins the text deltas of a step's attempt.
func textOfStep(events []runtime.Event, step, attempt int) string {
	var b strings.Builder
	for _, e := range events {
		if d, ok := e.(runtime.TextDelta); ok && d.Step == step && d.Attempt == attempt {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func testAFailedPlanningAttemptIsRetriedAndItsTextIsVoid(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{PlanAttempts: 2}, nil,
		scripted.FailMidStream("The answer is fo", fmt.Errorf("connection reset: %w", model.ErrStreamInterrupted)),
		scripted.Reply("The answer is four."),
	)
	f.model.WithStreaming()
	out := f.run("What is two and two?")
	if out.Status != runtime.StatusCompleted || out.Final == nil || out.Final.Text != "The answer is four." {
		t.Fatalf("out = %+v", out)
	}
	events := evtEvery(f, out.RunID)
	want := []string{"run_started", "text_delta+", "planning_retried", "text_delta+", "stream_usage", "planned", "usage", "run_completed"}
	if got := streamedKinds(events); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events = %v\nwant     %v", got, want)
	}
	var retried runtime.PlanningRetried
	for _, e := range events {
		if r, ok := e.(runtime.PlanningRetried); ok {
			retried = r
		}
	}
	if retried.Attempt != 2 || retried.Step != 1 {
		t.Errorf("planning retried = %+v, want attempt 2 of step 1", retried.EventHeader)
	}
	if got := textOfStep(events, 1, 1); got != "The answer is fo" {
		t.Errorf("attempt 1 streamed %q", got)
	}
	// A reader keeping the last attempt's text has the answer.
	if got := textOfStep(events, 1, 2); got != out.Final.Text {
		t.Errorf("attempt 2 streamed %q, the run answered %q", got, out.Final.Text)
	}
	if recs := logOf(t, f.rt, out.RunID); len(recs) != len(events) {
		t.Fatalf("the log holds %d events, subscribers saw %d", len(recs), len(events))
	}
}

func testAPlanningFailureWithoutRetriesFailsTheRunAfterItsStreamedEvents(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{}, nil,
		scripted.FailMidStream("Half an ans", fmt.Errorf("connection reset: %w", model.ErrStreamInterrupted)),
	)
	f.model.WithStreaming()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	runID := uniqueRunID("r-fail")
	_, err := f.rt.Run(ctx, "assistant", runtime.RunInput{Messages: []model.Message{model.UserMessage("hi")}}, runtime.WithRunID(runID))
	if !errors.Is(err, model.ErrStreamInterrupted) && (err == nil || !strings.Contains(err.Error(), "stream ended before")) {
		t.Fatalf("err = %v, want the interrupted stream", err)
	}
	recs := logOf(t, f.rt, runID)
	var types []string
	for i, rec := range recs {
		if rec.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d", i, rec.Seq)
		}
		types = append(types, string(rec.Type))
	}
	if len(types) < 3 || types[0] != "run_started" || types[1] != "text_delta" || types[len(types)-1] != "run_failed" {
		t.Fatalf("log = %v: want the streamed text, then run_failed numbered after it", types)
	}
}
