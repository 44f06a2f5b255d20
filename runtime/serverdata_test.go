package runtime

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// Markers carried only by server data, one per audience.
const (
	sdTimelineMarker = "SD-TIMELINE-7f3a"
	sdEvidenceMarker = "SD-EVIDENCE-91bc"
	sdInternalMarker = "SD-INTERNAL-c2d4"
)

// sdText flattens every string and byte slice reachable from v (exported
// or not) into one text, so a marker hidden in a []byte or json.RawMessage
// is found too.
func sdText(v any) string {
	var b strings.Builder
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			b.WriteString(v.String())
			b.WriteByte('\n')
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				b.Write(v.Bytes())
				b.WriteByte('\n')
				return
			}
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Key())
				walk(it.Value())
			}
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(v))
	return b.String()
}

// sdProducer returns a result with one server-data entry per audience.
func sdProducer(context.Context, *ToolCall) (*planner.ToolResult, error) {
	return &planner.ToolResult{
		Result: json.RawMessage(`{"summary":"3 points"}`),
		ServerData: []planner.ServerData{
			{Kind: "metrics.points", Audience: tools.AudienceTimeline, Data: json.RawMessage(`{"points":"` + sdTimelineMarker + `"}`)},
			{Kind: "audit.evidence", Audience: tools.AudienceEvidence, Data: json.RawMessage(`{"ref":"` + sdEvidenceMarker + `"}`)},
			{Kind: "composition.sidecar", Audience: tools.AudienceInternal, Data: json.RawMessage(`{"raw":"` + sdInternalMarker + `"}`)},
		},
	}, nil
}

// sdSpec is ws.<name> declaring the three server-data kinds of sdProducer.
func sdSpec(t *testing.T, name string) tools.ToolSpec {
	return newSpec(t, name, func(s *tools.ToolSpec) {
		s.ServerData = []tools.ServerDataSpec{
			{Kind: "metrics.points", Audience: tools.AudienceTimeline},
			{Kind: "audit.evidence", Audience: tools.AudienceEvidence},
			{Kind: "composition.sidecar", Audience: tools.AudienceInternal},
		}
	})
}

// sdCheckNoModelSaw fails when any recorded model request carries a marker.
func sdCheckNoModelSaw(t *testing.T, f *fixture) {
	t.Helper()
	reqs := f.model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model requests recorded")
	}
	for i, req := range reqs {
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw) + sdText(req)
		for _, m := range []string{sdTimelineMarker, sdEvidenceMarker, sdInternalMarker} {
			if strings.Contains(text, m) {
				t.Fatalf("model request %d carries server data %s", i+1, m)
			}
		}
	}
}

func TestServerDataAudiences(t *testing.T) {
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{{spec: sdSpec(t, "chart"), handler: sdProducer}},
		scripted.Call("chart", `{"q":"cpu"}`),
		scripted.Reply("CPU is fine."),
	)
	out := f.run("how is cpu?")
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("reason %q", out.Reason)
	}
	// None of them reaches the model.
	sdCheckNoModelSaw(t, f)
	if res := toolResults(f.model.Requests()[1].Messages); len(res) != 1 || string(res[0].Content) != `{"summary":"3 points"}` {
		t.Fatalf("the model saw %+v, want the result alone", res)
	}

	// timeline: events and the run's stored timeline.
	results := eventsOf[ToolResultReceived](f)
	if len(results) != 1 || len(results[0].Timeline) != 1 || results[0].Timeline[0].Kind != "metrics.points" ||
		!strings.Contains(string(results[0].Timeline[0].Data), sdTimelineMarker) {
		t.Fatalf("ToolResultReceived = %+v, want the timeline entry", results)
	}
	if len(out.Timeline) != 1 || out.Timeline[0].Data.Kind != "metrics.points" || out.Timeline[0].CallID != "call_1" || out.Timeline[0].Tool != "ws.chart" {
		t.Fatalf("RunOutput.Timeline = %+v", out.Timeline)
	}
	// evidence: stored apart from the timeline, not in events.
	if len(out.Evidence) != 1 || out.Evidence[0].Data.Kind != "audit.evidence" || !strings.Contains(string(out.Evidence[0].Data.Data), sdEvidenceMarker) {
		t.Fatalf("RunOutput.Evidence = %+v", out.Evidence)
	}
	if strings.Contains(sdText(out.Timeline), sdEvidenceMarker) || strings.Contains(sdText(out.Evidence), sdTimelineMarker) {
		t.Fatal("timeline and evidence are mixed")
	}
	f.mu.Lock()
	events := sdText(f.events)
	f.mu.Unlock()
	if strings.Contains(events, sdEvidenceMarker) {
		t.Fatal("evidence server data was published in events")
	}
	// internal: neither stored nor rendered anywhere.
	if strings.Contains(events, sdInternalMarker) {
		t.Fatal("internal server data was published in events")
	}
	if strings.Contains(sdText(out), sdInternalMarker) {
		t.Fatal("internal server data is in the run output")
	}
	session, err := f.rt.sessions.Load(context.Background(), out.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if s := sdText(session); strings.Contains(s, sdInternalMarker) || strings.Contains(s, sdTimelineMarker) || strings.Contains(s, sdEvidenceMarker) {
		t.Fatal("server data leaked into the session transcript (which models read)")
	}
}

func TestServerDataDeclaredAudienceWins(t *testing.T) {
	// A hand-written executor returns server data without an audience: the
	// audience its spec declares routes it.
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{{spec: sdSpec(t, "chart"), handler: func(ctx context.Context, call *ToolCall) (*planner.ToolResult, error) {
			res, _ := sdProducer(ctx, call)
			for i := range res.ServerData {
				res.ServerData[i].Audience = ""
			}
			return res, nil
		}}},
		scripted.Call("chart", `{}`),
		scripted.Reply("ok"),
	)
	out := f.run("chart")
	sdCheckNoModelSaw(t, f)
	f.mu.Lock()
	events := sdText(f.events)
	f.mu.Unlock()
	if strings.Contains(events, sdInternalMarker) || strings.Contains(sdText(out), sdInternalMarker) {
		t.Fatal("server data declared internal was kept or published")
	}
	if strings.Contains(events, sdEvidenceMarker) || len(out.Evidence) != 1 || out.Evidence[0].Data.Audience != tools.AudienceEvidence {
		t.Fatalf("evidence = %+v: server data declared evidence was not routed as evidence", out.Evidence)
	}
	if len(out.Timeline) != 1 || out.Timeline[0].Data.Audience != tools.AudienceTimeline {
		t.Fatalf("timeline = %+v", out.Timeline)
	}
}

func TestServerDataSurvivesSuspensionWithoutInternal(t *testing.T) {
	// The suspension checkpoint stores timeline and evidence, never
	// internal data; the continuation's output still carries them.
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{
			{spec: sdSpec(t, "chart"), handler: sdProducer},
			{spec: newSpec(t, "publish", func(s *tools.ToolSpec) {
				s.Confirmation = &tools.ConfirmationSpec{PromptTemplate: "Publish?"}
			})},
		},
		scripted.Calls(scripted.ToolCallSpec{Name: "chart"}, scripted.ToolCallSpec{Name: "publish"}),
		scripted.Reply("Published."),
	)
	out := f.run("chart and publish")
	if out.Status != StatusSuspended {
		t.Fatalf("status %s", out.Status)
	}
	// The checkpoint as the store keeps it: the bytes a durable store
	// would write.
	c, err := f.rt.suspensions.Take(context.Background(), out.RunID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	stored, err := MarshalCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	checkpoint := string(stored)
	if err := f.rt.suspensions.Put(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(checkpoint, sdTimelineMarker) || !strings.Contains(checkpoint, sdEvidenceMarker) {
		t.Fatal("the checkpoint lost the timeline or evidence")
	}
	if strings.Contains(checkpoint, sdInternalMarker) {
		t.Fatal("internal server data was stored in the checkpoint")
	}
	out = f.cont(out.RunID, out.Suspension.Pending[0].Approve())
	if out.Status != StatusCompleted || len(out.Timeline) != 1 || len(out.Evidence) != 1 {
		t.Fatalf("continued run: status %s timeline %+v evidence %+v", out.Status, out.Timeline, out.Evidence)
	}
	sdCheckNoModelSaw(t, f)
}
