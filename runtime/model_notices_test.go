package runtime

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/tools"
)

// bothCheckpoints is a run policy's Cache asking for both checkpoints.
var bothCheckpoints = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}

// ignoredEvents returns the CacheCheckpointIgnored events of one run.
func ignoredEvents(f *fixture, runID string) []model.CacheCheckpoint {
	var out []model.CacheCheckpoint
	for _, e := range eventsOf[CacheCheckpointIgnored](f) {
		if e.RunID == runID {
			out = append(out, e.Checkpoint)
		}
	}
	return out
}

func TestIgnoredCheckpointIsReportedOncePerRunAndCheckpoint(t *testing.T) {
	f := newFixture(t, RunPolicy{Cache: bothCheckpoints}, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}},
		// Every step of both runs ignores both checkpoints.
		scripted.IgnoreCache(scripted.Call("lookup", `{"q":"orders"}`)),
		scripted.IgnoreCache(scripted.Call("lookup", `{"q":"returns"}`)),
		scripted.IgnoreCache(scripted.Reply("3 rows.")),
		scripted.IgnoreCache(scripted.Reply("Again 3 rows.")),
	)
	first := f.run("How many orders?")
	if first.Status != StatusCompleted {
		t.Fatalf("run = %+v", first)
	}
	want := []model.CacheCheckpoint{model.CheckpointAfterSystem, model.CheckpointAfterTools}
	if got := ignoredEvents(f, first.RunID); !slices.Equal(got, want) {
		t.Fatalf("events over three planning steps = %v, want %v once each", got, want)
	}
	// They follow the first step's usage.
	types := evtTypes(evtAll(f, first.RunID))
	if i := slices.Index(types, string(EventCacheCheckpointIgnored)); i < 1 || types[i-1] != string(EventUsage) || types[i+1] != string(EventCacheCheckpointIgnored) {
		t.Fatalf("events = %v", types)
	}
	for i, r := range f.model.Requests() {
		if r.Cache != bothCheckpoints {
			t.Fatalf("request %d: Cache = %+v, want the run policy's", i+1, r.Cache)
		}
	}
	// Another run reports them again.
	second := f.run("And now?")
	if got := ignoredEvents(f, second.RunID); !slices.Equal(got, want) {
		t.Fatalf("second run events = %v, want %v", got, want)
	}
}

func TestIgnoredCheckpointIsNotReportedAgainAfterASuspension(t *testing.T) {
	confirm := func(s *tools.ToolSpec) {
		s.Confirmation = &tools.ConfirmationSpec{Title: "Confirm delete", PromptTemplate: `Delete {{ .q }}?`}
	}
	f := newFixture(t, RunPolicy{Cache: model.CacheCheckpoints{AfterTools: true}}, []fixtureTool{{spec: newSpec(t, "delete", confirm), handler: ok(`{"deleted":true}`)}},
		scripted.IgnoreCache(scripted.Call("delete", `{"q":"report"}`)),
		scripted.IgnoreCache(scripted.Reply("Deleted.")),
	)
	out := f.run("delete the report")
	if out.Status != StatusSuspended {
		t.Fatalf("out = %+v", out)
	}
	want := []model.CacheCheckpoint{model.CheckpointAfterTools}
	if got := ignoredEvents(f, out.RunID); !slices.Equal(got, want) {
		t.Fatalf("before the suspension: %v, want %v", got, want)
	}
	done := f.cont(out.RunID, out.Suspension.Pending[0].Approve())
	if done.Status != StatusCompleted || f.model.Remaining() != 0 {
		t.Fatalf("continued = %+v", done)
	}
	if got := ignoredEvents(f, out.RunID); !slices.Equal(got, want) {
		t.Fatalf("after the continuation: %v, want %v reported once", got, want)
	}
}

func TestPlacedCheckpointsAreNotReported(t *testing.T) {
	f := newFixture(t, RunPolicy{Cache: bothCheckpoints}, nil, scripted.Reply("Hi."))
	out := f.run("hello")
	if got := ignoredEvents(f, out.RunID); got != nil {
		t.Fatalf("events = %v for a model that ignored nothing", got)
	}
}

func TestNoticingClientGathersFromCompleteAndStream(t *testing.T) {
	inner := scripted.New(
		scripted.IgnoreCache(scripted.Reply("a")),
		scripted.IgnoreCache(scripted.Reply("b")),
		scripted.Fail(errors.New("provider down")),
	)
	var g ignoredCheckpoints
	c := &noticingClient{inner: inner, ignored: &g}
	ctx := context.Background()
	if _, err := c.Complete(ctx, &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Cache: model.CacheCheckpoints{AfterTools: true}}); err != nil {
		t.Fatal(err)
	}
	st, err := c.Stream(ctx, &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Cache: bothCheckpoints})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := st.Recv(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Complete(ctx, &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Cache: bothCheckpoints}); err == nil {
		t.Fatal("the provider's error was lost")
	}
	want := []model.CacheCheckpoint{model.CheckpointAfterTools, model.CheckpointAfterSystem}
	if got := g.checkpoints(); !slices.Equal(got, want) {
		t.Fatalf("gathered %v, want %v", got, want)
	}
	if c.Unwrap() != model.Client(inner) {
		t.Fatal("Unwrap does not return the agent's client")
	}
}
