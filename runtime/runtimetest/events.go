package runtimetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// evtAll returns the events the workflow of one run emitted, in order,
// from the run log: the events activities stream as they run (their
// Attempt is set) are left out here.
func evtAll(f *fixture, runID string) []runtime.Event {
	f.t.Helper()
	var out []runtime.Event
	for _, e := range runEvents(f.t, f.rt.RunLog(), runID) {
		if e.Head().Attempt == 0 {
			out = append(out, e)
		}
	}
	return out
}

// evtEvery returns every event subscribers saw of one run, the streamed
// ones included, in order.
func evtEvery(f *fixture, runID string) []runtime.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []runtime.Event
	for _, e := range f.subscribed {
		if e.Run() == runID {
			out = append(out, e)
		}
	}
	return out
}

// evtTypes names events by type.
func evtTypes(events []runtime.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = string(e.Type())
	}
	return out
}

func testEventsFullRunInOrder(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{
		spec:    newSpec(t, "lookup", hintCallTemplate(`Looking up {{ .q }}`), hintResultTemplate(`{{ .Result.rows }} rows`)),
		handler: ok(`{"rows":3}`),
	}},
		scripted.Call("lookup", `{"q":"orders"}`),
		scripted.Reply("There are 3 rows."),
	)
	out := f.run("How many orders?")
	events := evtAll(f, out.RunID)
	want := []runtime.EventType{
		runtime.EventRunStarted,
		runtime.EventPlanned, runtime.EventUsage,
		runtime.EventToolCallScheduled, runtime.EventToolResult,
		runtime.EventPlanned, runtime.EventUsage,
		runtime.EventRunCompleted,
	}
	got := evtTypes(events)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events = %v\nwant     %v", got, want)
	}
	if e := events[0].(runtime.RunStarted); e.Agent != "assistant" || e.SessionID != out.SessionID || e.Continued {
		t.Errorf("run started = %+v", e)
	}
	if e := events[1].(runtime.Planned); e.Step != 1 || fmt.Sprint(e.ToolCalls) != "[lookup]" || e.Final {
		t.Errorf("first plan = %+v", e)
	}
	if e := events[2].(runtime.UsageReported); e.Usage.InputTokens == 0 {
		t.Errorf("usage = %+v", e)
	}
	sched := events[3].(runtime.ToolCallScheduled)
	if sched.Tool != "ws.lookup" || sched.DisplayHint != "Looking up orders" || sched.CallID == "" {
		t.Errorf("scheduled = %+v", sched)
	}
	res := events[4].(runtime.ToolResultReceived)
	if res.CallID != sched.CallID || string(res.Result) != `{"rows":3}` || res.Failure != nil || res.DisplayHint != "3 rows" {
		t.Errorf("result = %+v", res)
	}
	if e := events[5].(runtime.Planned); e.Step != 2 || !e.Final || e.Text != "There are 3 rows." {
		t.Errorf("second plan = %+v", e)
	}
	if e := events[7].(runtime.RunCompleted); e.Reason != planner.ReasonFinalResponse {
		t.Errorf("completed = %+v", e)
	}
}

func testEventsRunCompletedCarriesTerminationReason(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: newSpec(t, "submit", terminal()), handler: ok(`{"done":true}`)}},
		scripted.Call("submit", `{}`),
	)
	out := f.run("submit it")
	events := evtAll(f, out.RunID)
	last, ok := events[len(events)-1].(runtime.RunCompleted)
	if !ok || last.Reason != planner.ReasonTerminalTool || out.Reason != planner.ReasonTerminalTool {
		t.Fatalf("events = %v, out reason %q", evtTypes(events), out.Reason)
	}
	// The scheduled call shows the title when there is no template.
	if s := eventsOf[runtime.ToolCallScheduled](f); len(s) != 1 || s[0].DisplayHint != "Tool submit" {
		t.Errorf("scheduled = %+v", s)
	}
}

func testEventsSuspendedRunEmitsAwaiting(t *testing.T, newEngine NewEngine) {
	confirm := func(s *tools.ToolSpec) {
		s.Confirmation = &tools.ConfirmationSpec{Title: "Confirm delete", PromptTemplate: `Delete {{ .q }}?`}
	}
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: newSpec(t, "delete", confirm), handler: ok(`{"deleted":true}`)}},
		scripted.Call("delete", `{"q":"report"}`),
		scripted.Reply("Deleted."),
	)
	out := f.run("delete the report")
	if out.Status != runtime.StatusSuspended {
		t.Fatalf("out = %+v", out)
	}
	events := evtAll(f, out.RunID)
	want := []runtime.EventType{runtime.EventRunStarted, runtime.EventPlanned, runtime.EventUsage, runtime.EventAwaiting}
	if fmt.Sprint(evtTypes(events)) != fmt.Sprint(want) {
		t.Fatalf("events = %v, want %v", evtTypes(events), want)
	}
	aw := events[3].(runtime.Awaiting)
	if len(aw.Pending) != 1 || aw.Pending[0].Kind != runtime.PendingConfirmation || aw.Pending[0].Prompt != "Delete report?" || aw.Pending[0].Tool != "ws.delete" {
		t.Errorf("awaiting = %+v", aw)
	}
	done := f.cont(out.RunID, out.Suspension.Pending[0].Approve())
	if done.Status != runtime.StatusCompleted {
		t.Fatalf("continued = %+v", done)
	}
	events = evtAll(f, out.RunID)[len(want):]
	want = []runtime.EventType{runtime.EventRunStarted, runtime.EventConfirmation, runtime.EventToolCallScheduled, runtime.EventToolResult, runtime.EventPlanned, runtime.EventUsage, runtime.EventRunCompleted}
	if fmt.Sprint(evtTypes(events)) != fmt.Sprint(want) {
		t.Fatalf("continuation events = %v, want %v", evtTypes(events), want)
	}
	if e := events[0].(runtime.RunStarted); !e.Continued {
		t.Errorf("continuation started = %+v", e)
	}
	if d := events[1].(runtime.ConfirmationDecided); !d.Approved || d.CallID != aw.Pending[0].CallID || d.PayloadDigest != aw.Pending[0].PayloadDigest || d.PayloadDigest == "" {
		t.Errorf("decision record = %+v, want the approval of %+v", d, aw.Pending[0])
	}
	if !strings.Contains(string(events[3].(runtime.ToolResultReceived).Result), "deleted") {
		t.Errorf("result = %+v", events[2])
	}
}
