package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// Tests pinning guarantees that a half-implementation would pass with
// happy-path tests only: admission per tool, the declared server-data
// audience over the executor's, and internal server data dropped inside the
// execute activity.

func TestUndiscoveredDeferredToolIsRefusedWhenAnotherWasDiscovered(t *testing.T) {
	t.Parallel()
	// The agent defers startExport and indexStats. The model searches and
	// discovers startExport only, then guesses indexStats: the guess is
	// refused although a discovery exists; then startExport runs.
	f, inner := discoveryFixture(t,
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Calls(scripted.ToolCallSpec{ID: "guess", Name: "indexStats", Payload: `{"q":"orders"}`}),
		scripted.Calls(scripted.ToolCallSpec{ID: "found", Name: "startExport", Payload: `{"q":"orders"}`}),
		scripted.Reply("Export started."),
	)
	out := f.runAgent("deferring", "Export orders to CSV")

	// Precondition: the search discovered startExport and nothing else.
	if got := model.DiscoveredTools(out.Messages); !slices.Equal(got, []tools.Ident{"ws.startExport"}) {
		t.Fatalf("the search discovered %v, want exactly [ws.startExport] for this test to mean anything", got)
	}
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("reason %q, want %q", out.Reason, planner.ReasonFinalResponse)
	}
	// The undiscovered tool's executor never ran; the discovered one did.
	if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.startExport"}) {
		t.Fatalf("executed %v, want only [ws.startExport]: an undiscovered deferred tool ran because another tool was discovered", got)
	}
	if out.ToolCalls != 1 {
		t.Errorf("budgeted tool calls = %d, want 1 (the refusal costs nothing)", out.ToolCalls)
	}

	// The refusal is not_in_active_set and names the recovery call.
	refusal := capsDecodeFailure(t, capsResultOf(t, out.Messages, "guess"))
	want := "Tool 'indexStats' not in active set. Call search_tools(query='indexStats') to discover it, or use one of: applyFilter, openTable, startExport"
	if refusal.Error != "not_in_active_set" || refusal.Message != want {
		t.Fatalf("the model read %+v\nwant error not_in_active_set with message %q", refusal, want)
	}
	var sawRefusal bool
	for _, e := range eventsOf[ToolResultReceived](f) {
		if e.CallID == "guess" {
			sawRefusal = e.Failure != nil && e.Failure.Code == "not_in_active_set"
		}
	}
	if !sawRefusal {
		t.Error("no ToolResultReceived event reports the refusal of call guess as not_in_active_set")
	}
	// The model read the refusal, then the discovered tool's result.
	reqs := inner.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the model got %d requests, want 4", len(reqs))
	}
	if res := capsResultOf(t, reqs[3].Messages, "found"); res.IsError {
		t.Fatalf("the discovered tool's call failed: %s", res.Content)
	}
}

func TestDeclaredServerDataAudienceWinsOverTheExecutorsLabel(t *testing.T) {
	t.Parallel()
	// The spec declares one kind internal and one evidence; the hand-written
	// executor labels both timeline. The declaration wins. An undeclared
	// kind keeps the executor's label (timeline), so the timeline is not
	// empty for a trivial reason.
	spec := newSpec(t, "chart", func(s *tools.ToolSpec) {
		s.ServerData = []tools.ServerDataSpec{
			{Kind: "composition.sidecar", Audience: tools.AudienceInternal},
			{Kind: "audit.evidence", Audience: tools.AudienceEvidence},
		}
	})
	mislabelling := func(context.Context, *ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{
			Result: json.RawMessage(`{"summary":"3 points"}`),
			ServerData: []planner.ServerData{
				{Kind: "composition.sidecar", Audience: tools.AudienceTimeline, Data: json.RawMessage(`{"raw":"` + sdInternalMarker + `"}`)},
				{Kind: "audit.evidence", Audience: tools.AudienceTimeline, Data: json.RawMessage(`{"ref":"` + sdEvidenceMarker + `"}`)},
				{Kind: "metrics.points", Audience: tools.AudienceTimeline, Data: json.RawMessage(`{"points":"` + sdTimelineMarker + `"}`)},
			},
		}, nil
	}
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{{spec: spec, handler: mislabelling}},
		scripted.Call("chart", `{"q":"cpu"}`),
		scripted.Reply("CPU is fine."),
	)
	out := f.run("how is cpu?")
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("reason %q", out.Reason)
	}

	// Internal (declared) data appears nowhere: not in the run output, not
	// in any event, not in any model request.
	if strings.Contains(sdText(out.Timeline), sdInternalMarker) {
		t.Fatal("server data declared internal reached RunOutput.Timeline: the executor's timeline label won")
	}
	if strings.Contains(sdText(out.Evidence), sdInternalMarker) {
		t.Fatal("server data declared internal reached RunOutput.Evidence")
	}
	if strings.Contains(sdText(out), sdInternalMarker) {
		t.Fatal("server data declared internal is in the run output")
	}
	f.mu.Lock()
	events := sdText(f.events)
	f.mu.Unlock()
	if strings.Contains(events, sdInternalMarker) {
		t.Fatal("server data declared internal was published in an event")
	}
	sdCheckNoModelSaw(t, f)

	// Evidence (declared) is stored as evidence, not in the timeline nor in
	// events.
	if len(out.Evidence) != 1 || out.Evidence[0].Data.Kind != "audit.evidence" ||
		out.Evidence[0].Data.Audience != tools.AudienceEvidence || !strings.Contains(string(out.Evidence[0].Data.Data), sdEvidenceMarker) {
		t.Fatalf("RunOutput.Evidence = %+v, want the entry declared evidence", out.Evidence)
	}
	if strings.Contains(sdText(out.Timeline), sdEvidenceMarker) {
		t.Fatal("server data declared evidence is in RunOutput.Timeline: the executor's timeline label won")
	}
	if strings.Contains(events, sdEvidenceMarker) {
		t.Fatal("server data declared evidence was published in an event")
	}

	// The undeclared kind keeps the executor's timeline label.
	if len(out.Timeline) != 1 || out.Timeline[0].Data.Kind != "metrics.points" || out.Timeline[0].Data.Audience != tools.AudienceTimeline {
		t.Fatalf("RunOutput.Timeline = %+v, want only the undeclared metrics.points entry", out.Timeline)
	}
	if !strings.Contains(events, sdTimelineMarker) {
		t.Fatal("the timeline entry was not published")
	}
}

// recordingEngine is the in-memory engine recording, as a durable engine
// would store them, the JSON input and output of every activity execution
// and the output of every workflow.
type recordingEngine struct {
	engine.Engine
	mu      sync.Mutex
	records []recordedIO
}

// recordedIO is one recorded activity execution or workflow end.
type recordedIO struct {
	Kind   string // "activity" or "workflow"
	Name   string
	Input  string
	Output string
}

func newRecordingEngine() *recordingEngine { return &recordingEngine{Engine: inmem.New()} }

func (e *recordingEngine) RegisterActivity(def engine.ActivityDefinition) error {
	h := def.Handler
	def.Handler = func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		out, err := h(ctx, in)
		e.record(recordedIO{Kind: "activity", Name: def.Name, Input: string(in), Output: string(out)})
		return out, err
	}
	return e.Engine.RegisterActivity(def)
}

func (e *recordingEngine) RegisterWorkflow(def engine.WorkflowDefinition) error {
	h := def.Handler
	def.Handler = func(wctx engine.WorkflowContext, in json.RawMessage) (json.RawMessage, error) {
		out, err := h(wctx, in)
		e.record(recordedIO{Kind: "workflow", Name: def.Name, Input: string(in), Output: string(out)})
		return out, err
	}
	return e.Engine.RegisterWorkflow(def)
}

func (e *recordingEngine) record(r recordedIO) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.records = append(e.records, r)
}

func (e *recordingEngine) recorded() []recordedIO {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.records)
}

// TestInternalServerDataNeverLeavesTheExecuteActivity stays here: it
// records what crosses a wrapped in-memory engine, by internal activity
// name (activityExecute).
func TestInternalServerDataNeverLeavesTheExecuteActivity(t *testing.T) {
	t.Parallel()
	const (
		internalDeclared   = "ACT-INTERNAL-DECLARED-4b8e"
		internalUndeclared = "ACT-INTERNAL-UNDECLARED-a61f"
		timelineMarker     = "ACT-TIMELINE-0d93"
		evidenceMarker     = "ACT-EVIDENCE-e27c"
	)
	spec := newSpec(t, "compose", func(s *tools.ToolSpec) {
		s.ServerData = []tools.ServerDataSpec{
			{Kind: "composition.sidecar", Audience: tools.AudienceInternal},
			{Kind: "metrics.points", Audience: tools.AudienceTimeline},
			{Kind: "audit.evidence", Audience: tools.AudienceEvidence},
		}
	})
	producer := func(context.Context, *ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{
			Result: json.RawMessage(`{"summary":"composed"}`),
			ServerData: []planner.ServerData{
				{Kind: "composition.sidecar", Audience: tools.AudienceInternal, Data: json.RawMessage(`{"raw":"` + internalDeclared + `"}`)},
				{Kind: "scratch.undeclared", Audience: tools.AudienceInternal, Data: json.RawMessage(`{"raw":"` + internalUndeclared + `"}`)},
				{Kind: "metrics.points", Audience: tools.AudienceTimeline, Data: json.RawMessage(`{"points":"` + timelineMarker + `"}`)},
				{Kind: "audit.evidence", Audience: tools.AudienceEvidence, Data: json.RawMessage(`{"ref":"` + evidenceMarker + `"}`)},
			},
		}, nil
	}
	eng := newRecordingEngine()
	f := newFixtureWith(t, AgentRegistration{}, []Option{WithEngine(eng)},
		[]fixtureTool{{spec: spec, handler: producer}},
		scripted.Call("compose", `{"q":"x"}`),
		scripted.Reply("Composed."),
	)
	out := f.run("compose it")
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("reason %q", out.Reason)
	}
	if !slices.Equal(f.executed(), []tools.Ident{"ws.compose"}) {
		t.Fatalf("executed %v, want the producing tool to run", f.executed())
	}

	records := eng.recorded()
	// The recorder saw the execute activity's output, with the data that
	// is meant to leave it: the test cannot pass vacuously.
	var executeOutputs []string
	for _, r := range records {
		if r.Kind == "activity" && r.Name == activityExecute {
			executeOutputs = append(executeOutputs, r.Output)
		}
	}
	if len(executeOutputs) != 1 {
		t.Fatalf("recorded %d outputs of %s, want 1 (records: %+v)", len(executeOutputs), activityExecute, records)
	}
	if !strings.Contains(executeOutputs[0], timelineMarker) || !strings.Contains(executeOutputs[0], evidenceMarker) {
		t.Fatalf("the recorded %s output lacks the timeline or evidence data, so the recorder does not see outputs: %s", activityExecute, executeOutputs[0])
	}

	// No internal server data in anything a durable engine would store.
	for _, r := range records {
		for _, m := range []string{internalDeclared, internalUndeclared} {
			if strings.Contains(r.Output, m) {
				t.Errorf("internal server data %s is in the output of %s %s: %s", m, r.Kind, r.Name, r.Output)
			}
			if strings.Contains(r.Input, m) {
				t.Errorf("internal server data %s is in the input of %s %s", m, r.Kind, r.Name)
			}
		}
	}
	// Nor anywhere else the run leaves a trace.
	f.mu.Lock()
	events := sdText(f.events)
	f.mu.Unlock()
	for _, m := range []string{internalDeclared, internalUndeclared} {
		if strings.Contains(sdText(out), m) || strings.Contains(events, m) {
			t.Errorf("internal server data %s is in the run output or events", m)
		}
	}
}
