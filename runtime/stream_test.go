package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// streamedKinds names the events of a run, folding runs of one streamed
// type into one name with "+": [run_started text_delta+ …].
func streamedKinds(events []Event) []string {
	var out []string
	for _, e := range events {
		name := string(e.Type())
		if e.Head().Attempt > 0 && e.Type() != EventPlanningRetried && e.Type() != EventStreamUsage {
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
func textOfStep(events []Event, step, attempt int) string {
	var b strings.Builder
	for _, e := range events {
		if d, ok := e.(TextDelta); ok && d.Step == step && d.Attempt == attempt {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func TestAStreamedRunReportsItsSearchItsCallAsItFormsAndItsText(t *testing.T) {
	f := newFixtureWith(t, AgentRegistration{
		Uses:   []ToolsetUse{{Toolset: "ws", Deferred: []string{"lookup"}}},
		Search: model.SearchSettings{Mode: model.SearchPortable},
	}, nil, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}},
		scripted.Call("search_tools", `{"query":"lookup"}`),
		scripted.Assistant("Let me look that up.", scripted.ToolCallSpec{Name: "lookup", Payload: `{"q": "orders"}`}),
		scripted.Reply("There are 3 rows in the orders table."),
	)
	f.model.WithStreaming()
	out := f.run("How many orders?")
	if out.Status != StatusCompleted {
		t.Fatalf("out = %+v", out)
	}
	events := evtEvery(f, out.RunID)
	want := []string{
		"run_started",
		// Step 1: the search round, then the text and the call as they form.
		"stream_usage", "search_round+", "text_delta+", "tool_call_streaming+", "stream_usage",
		"planned", "usage",
		"tool_call_scheduled", "tool_result",
		// Step 2: the answer as it forms.
		"text_delta+", "stream_usage",
		"planned", "usage", "run_completed",
	}
	if got := streamedKinds(events); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events =\n%v\nwant\n%v", got, want)
	}
	var (
		search    SearchRound
		forming   strings.Builder
		formingID string
		scheduled ToolCallScheduled
		planned   []Planned
		usage     model.Usage
		stepUsage model.Usage
	)
	for _, e := range events {
		switch e := e.(type) {
		case SearchRound:
			search = e
		case ToolCallStreaming:
			forming.WriteString(e.ArgumentsDelta)
			formingID = e.CallID
			if e.Tool != "lookup" || e.Step != 1 || e.Attempt != 1 {
				t.Errorf("forming call = %+v", e)
			}
		case ToolCallScheduled:
			scheduled = e
		case Planned:
			planned = append(planned, e)
		case StreamUsage:
			usage = usage.Add(e.Usage)
		case UsageReported:
			stepUsage = stepUsage.Add(e.Usage)
		}
	}
	if search.Query != "lookup" || fmt.Sprint(search.Found) != "[lookup]" || search.Step != 1 {
		t.Errorf("search round = %+v", search)
	}
	// The forming call is the scheduled one: same id, and its pieces are
	// the arguments the model wrote, which the run scheduled canonically.
	if formingID != scheduled.CallID {
		t.Errorf("the forming call is %q, the scheduled one %q", formingID, scheduled.CallID)
	}
	var written, canonical any
	if err := json.Unmarshal([]byte(forming.String()), &written); err != nil {
		t.Fatalf("the argument pieces do not join into JSON: %q", forming.String())
	}
	_ = json.Unmarshal(scheduled.Payload, &canonical)
	if fmt.Sprint(written) != fmt.Sprint(canonical) {
		t.Errorf("argument pieces %s, scheduled payload %s", forming.String(), scheduled.Payload)
	}
	for i, p := range planned {
		if got := textOfStep(events, i+1, 1); got != p.Text {
			t.Errorf("step %d: text deltas make %q, the step planned %q", i+1, got, p.Text)
		}
	}
	if usage != stepUsage || usage == (model.Usage{}) {
		t.Errorf("streamed usage %+v, the steps' usage %+v: want equal, not zero", usage, stepUsage)
	}
	// The run log holds the streamed events as subscribers saw them.
	recs := logOf(t, f.rt, out.RunID)
	if len(recs) != len(events) {
		t.Fatalf("the log holds %d events, subscribers saw %d", len(recs), len(events))
	}
	for i, rec := range recs {
		want, _ := MarshalEvent(NewEventRecord(events[i]))
		got, _ := MarshalEvent(rec)
		if string(got) != string(want) || rec.Seq != int64(i+1) {
			t.Fatalf("record %d = %s\nsubscribers saw %s", i, got, want)
		}
	}
}

func TestAStreamedCallTheRunRefusesIsNeverScheduled(t *testing.T) {
	f := newFixtureWith(t, AgentRegistration{
		Uses:   []ToolsetUse{{Toolset: "ws", Deferred: []string{"purge"}}},
		Search: model.SearchSettings{Mode: model.SearchPortable},
	}, nil, []fixtureTool{{spec: newSpec(t, "purge"), handler: ok(`{"purged":true}`)}, {spec: newSpec(t, "lookup"), handler: ok(`{}`)}},
		// purge is deferred and not discovered: admission refuses it.
		scripted.Call("purge", `{"q":"everything"}`),
		scripted.Reply("I could not purge."),
	)
	f.model.WithStreaming()
	out := f.run("Purge everything.")
	events := evtEvery(f, out.RunID)
	var forming string
	for _, e := range events {
		switch e := e.(type) {
		case ToolCallStreaming:
			forming = e.CallID
		case ToolCallScheduled:
			t.Fatalf("a refused call was scheduled: %+v", e)
		}
	}
	if forming == "" {
		t.Fatal("the call was never shown forming")
	}
	var refused bool
	for _, e := range eventsOf[ToolResultReceived](f) {
		refused = refused || (e.CallID == forming && e.Failure != nil)
	}
	if !refused || len(f.executed()) != 0 {
		t.Fatalf("the call was not refused (executed %v)", f.executed())
	}
}

func TestToolProgressIsAnEventOfTheRunningCall(t *testing.T) {
	f := newFixture(t, RunPolicy{}, []fixtureTool{{spec: newSpec(t, "export"), handler: func(ctx context.Context, call *ToolCall) (*planner.ToolResult, error) {
		for i := 1; i <= MaxProgressEvents+5; i++ {
			tools.ReportProgress(ctx, tools.Progress{Progress: float64(i), Total: MaxProgressEvents + 5, Message: "exporting"})
		}
		return &planner.ToolResult{Result: json.RawMessage(`{"done":true}`)}, nil
	}}},
		scripted.Call("export", `{}`),
		scripted.Reply("Exported."),
	)
	out := f.run("Export it.")
	events := evtEvery(f, out.RunID)
	want := []string{"run_started", "stream_usage", "planned", "usage", "tool_call_scheduled", "tool_progress+", "tool_result", "text_delta+", "stream_usage", "planned", "usage", "run_completed"}
	if got := streamedKinds(events); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events = %v\nwant     %v", got, want)
	}
	progress := eventsOf[ToolProgress](f)
	if len(progress) != MaxProgressEvents {
		t.Fatalf("%d progress events, want the first %d", len(progress), MaxProgressEvents)
	}
	scheduled := eventsOf[ToolCallScheduled](f)[0]
	for i, p := range progress {
		if p.CallID != scheduled.CallID || p.Tool != "ws.export" || p.Progress.Progress != float64(i+1) || p.Message != "exporting" {
			t.Fatalf("progress %d = %+v", i, p)
		}
	}
	if recs := logOf(t, f.rt, out.RunID); len(recs) != len(events) {
		t.Fatalf("the log holds %d events, subscribers saw %d", len(recs), len(events))
	}
}

func TestAFormingCallsPiecesStopAtItsArgumentBound(t *testing.T) {
	const limit = 24
	big := `{"q":"` + strings.Repeat("orders and more orders ", 20) + `"}`
	f := newFixture(t, RunPolicy{ModelOutput: OutputLimits{MaxArgumentBytes: limit}}, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{}`)}},
		scripted.Call("lookup", big),
		scripted.Reply("That was too long."),
	)
	f.model.WithStreaming()
	out := f.run("Look it up.")
	shown := 0
	for _, e := range eventsOf[ToolCallStreaming](f) {
		shown += len(e.ArgumentsDelta)
	}
	if shown == 0 || shown > limit {
		t.Fatalf("the forming call showed %d bytes of its arguments, want some and at most %d", shown, limit)
	}
	if len(f.executed()) != 0 || out.Status != StatusCompleted {
		t.Fatalf("executed %v, out %+v: the call over the bound must be refused, not run", f.executed(), out)
	}
}
