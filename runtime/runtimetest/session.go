package runtimetest

import (
	"context"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// testASessionKeepsItsRunsForTheNext: a completed run saves its session's
// transcript — the user's message, the call's result, the answer — and the
// next run of the session, in another runtime on the same store, plans on
// it and saves it again after its own turn.
func testASessionKeepsItsRunsForTheNext(t *testing.T, newEngine NewEngine) {
	store := runtime.NewMemoryStore()
	opts := []runtime.Option{runtime.WithStore(store)}
	first := newFixtureWith(t, newEngine, runtime.AgentRegistration{}, opts,
		[]fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}},
		scripted.Call("lookup", `{"q":"orders"}`),
		scripted.Reply("There are 3 rows."),
	)
	second := newFixtureWith(t, newEngine, runtime.AgentRegistration{}, opts,
		[]fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":5}`)}},
		scripted.Reply("Still 3 rows."),
	)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	session := uniqueRunID("session")
	run := func(f *fixture, text string) *runtime.RunOutput {
		t.Helper()
		out, err := f.rt.Run(ctx, "assistant", runtime.RunInput{SessionID: session, Messages: []model.Message{model.UserMessage(text)}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonFinalResponse || out.SessionID != session {
			t.Fatalf("out = %+v", out)
		}
		return out
	}
	run(first, "How many orders?")
	saved, err := store.Sessions().Load(ctx, session)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Version != 1 {
		t.Fatalf("session version %d after one run, want 1", saved.Version)
	}
	msgs := saved.Messages
	if len(msgs) == 0 || msgs[0].Role != model.RoleUser || msgs[0].TextContent() != "How many orders?" {
		t.Fatalf("the saved session starts with %+v, want the user's message", msgs)
	}
	if res := toolResults(msgs); len(res) != 1 || string(res[0].Content) != `{"rows":3}` {
		t.Fatalf("the saved session's tool results = %+v, want the lookup's", res)
	}
	if last := msgs[len(msgs)-1]; last.Role != model.RoleAssistant || last.TextContent() != "There are 3 rows." {
		t.Fatalf("the saved session ends with %+v, want the answer", last)
	}

	run(second, "And now?")
	reqs := second.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests in the second run, want 1", len(reqs))
	}
	if res := toolResults(reqs[0].Messages); len(res) != 1 || string(res[0].Content) != `{"rows":3}` {
		t.Fatalf("the second run's model read tool results %+v, want the first run's", res)
	}
	if m := reqs[0].Messages; m[len(m)-1].TextContent() != "And now?" {
		t.Fatalf("the second run's request ends with %+v, want its user message", m[len(m)-1])
	}
	again, err := store.Sessions().Load(ctx, session)
	if err != nil {
		t.Fatal(err)
	}
	if again.Version != 2 || len(again.Messages) <= len(msgs) || again.Messages[len(again.Messages)-1].TextContent() != "Still 3 rows." {
		t.Fatalf("session after the second run: version %d, %d messages (before: %d), last %+v", again.Version, len(again.Messages), len(msgs), again.Messages[len(again.Messages)-1])
	}
}
