package runtimetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// intrTripSpec is ws.trip with two required fields.
func intrTripSpec(t *testing.T) tools.ToolSpec {
	return newSpec(t, "trip", withPayload(t, `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"]}`))
}

// intrPayloads returns the payloads the executor received, in order.
func intrPayloads(f *fixture) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, string(c.Payload))
	}
	return out
}

// intrLastResults returns the tool results of the last model request.
func intrLastResults(t *testing.T, f *fixture) []model.ToolResult {
	t.Helper()
	reqs := f.model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model requests")
	}
	return toolResults(reqs[len(reqs)-1].Messages)
}

// intrFailure decodes a failure result the model reads.
func intrFailure(t *testing.T, r model.ToolResult) (code, message, recovery string) {
	t.Helper()
	var f struct{ Error, Message, Recovery string }
	if err := json.Unmarshal(r.Content, &f); err != nil || !r.IsError {
		t.Fatalf("result %s (error %v) is not a failure: %v", r.Content, r.IsError, err)
	}
	return f.Error, f.Message, f.Recovery
}

func testOnMissingFieldsFinalize(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{OnMissingFields: runtime.MissingFieldsFinalize},
		[]fixtureTool{{spec: intrTripSpec(t)}},
		scripted.Call("trip", `{"city":"Lyon"}`),
		scripted.Reply("I need the number of days."),
	)
	out := f.run("plan a trip to Lyon")
	if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonMissingFields {
		t.Fatalf("status %s reason %q, want %q", out.Status, out.Reason, planner.ReasonMissingFields)
	}
	if out.Final == nil || out.Final.Text != "I need the number of days." {
		t.Fatalf("final = %+v", out.Final)
	}
	if got := f.executed(); len(got) != 0 {
		t.Fatalf("executed %v", got)
	}
	if reqs := f.model.Requests(); len(reqs) != 2 || len(reqs[1].Tools) != 0 {
		t.Fatalf("want a final turn without tools after the missing field; requests %d", len(reqs))
	}
}

func testOnMissingFieldsAwaitClarification(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{OnMissingFields: runtime.MissingFieldsAwaitClarification, InterruptsAllowed: true},
		[]fixtureTool{{spec: intrTripSpec(t), handler: ok(`{"booked":true}`)}},
		scripted.Call("trip", `{"city":"Lyon"}`),
		scripted.Reply("Booked."),
	)
	out := f.run("plan a trip to Lyon")
	if out.Status != runtime.StatusSuspended || out.Suspension == nil {
		t.Fatalf("out = %+v, want a suspension", out)
	}
	p := out.Suspension.Pending[0]
	if p.Kind != runtime.PendingClarification || p.CallID != "call_1" || p.Tool != "ws.trip" || len(p.Fields) != 1 || p.Fields[0] != "days" || !strings.Contains(p.Prompt, "days") {
		t.Fatalf("pending = %+v, want a clarification naming days", p)
	}
	if got := f.executed(); len(got) != 0 {
		t.Fatalf("executed %v while waiting", got)
	}
	out = f.cont(out.RunID, runtime.PendingInputResponse{Clarification: &runtime.ClarificationAnswer{Fields: json.RawMessage(`{"days":3}`)}})
	if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("out = %+v", out)
	}
	got := intrPayloads(f)
	if len(got) != 1 {
		t.Fatalf("executor payloads %v", got)
	}
	var p2 map[string]any
	if err := json.Unmarshal([]byte(got[0]), &p2); err != nil || p2["city"] != "Lyon" || p2["days"] != float64(3) {
		t.Fatalf("executor payload %s, want the call with the clarified field merged", got[0])
	}
	if res := intrLastResults(t, f); len(res) != 1 || res[0].CallID != "call_1" || string(res[0].Content) != `{"booked":true}` {
		t.Fatalf("the model read %+v", res)
	}
}

func testOnMissingFieldsResume(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{OnMissingFields: runtime.MissingFieldsResume},
		[]fixtureTool{{spec: intrTripSpec(t), handler: ok(`{"booked":true}`)}},
		scripted.Call("trip", `{"city":"Lyon"}`),
		scripted.Reply("Booked."),
	)
	out := f.run("plan a trip to Lyon")
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("reason %q", out.Reason)
	}
	if got := intrPayloads(f); len(got) != 1 || got[0] != `{"city":"Lyon"}` {
		t.Fatalf("executor payloads %v, want the call run despite the missing field", got)
	}
	if res := intrLastResults(t, f); len(res) != 1 || res[0].IsError {
		t.Fatalf("the model read %+v", res)
	}
}

func testOnMissingFieldsEmptyReturnsFailureToModel(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{},
		[]fixtureTool{{spec: intrTripSpec(t), handler: ok(`{"booked":true}`)}},
		scripted.Call("trip", `{"city":"Lyon"}`),
		scripted.Call("trip", `{"city":"Lyon","days":2}`),
		scripted.Reply("Booked."),
	)
	out := f.run("plan a trip to Lyon")
	if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("out = %+v", out)
	}
	reqs := f.model.Requests()
	res := toolResults(reqs[1].Messages)
	if len(res) != 1 {
		t.Fatalf("second request results %+v", res)
	}
	code, msg, recovery := intrFailure(t, res[0])
	if code != "missing_fields" || recovery != string(planner.RecoveryCorrectCall) || !strings.Contains(msg, "days") {
		t.Fatalf("the model read %s", res[0].Content)
	}
	if got := intrPayloads(f); len(got) != 1 || got[0] != `{"city":"Lyon","days":2}` {
		t.Fatalf("executor payloads %v, want only the corrected call", got)
	}
}

func testOnMissingFieldsOnlyMissingFields(t *testing.T, newEngine NewEngine) {
	// A wrong type is not a missing field: whatever the policy, it goes
	// back to the model as a correctable failure and the run goes on.
	for _, action := range []runtime.MissingFieldsAction{runtime.MissingFieldsPlanner, runtime.MissingFieldsFinalize, runtime.MissingFieldsAwaitClarification, runtime.MissingFieldsResume} {
		t.Run(string(action)+"_", func(t *testing.T) {
			f := newFixture(t, newEngine, runtime.RunPolicy{OnMissingFields: action, InterruptsAllowed: true},
				[]fixtureTool{{spec: intrTripSpec(t), handler: ok(`{"booked":true}`)}},
				scripted.Call("trip", `{"city":"Lyon","days":"three"}`),
				scripted.Call("trip", `{"city":"Lyon","days":3}`),
				scripted.Reply("Booked."),
			)
			out := f.run("plan a trip to Lyon")
			if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonFinalResponse {
				t.Fatalf("status %s reason %q: a wrong type went through OnMissingFields", out.Status, out.Reason)
			}
			res := toolResults(f.model.Requests()[1].Messages)
			if len(res) != 1 {
				t.Fatalf("results %+v", res)
			}
			code, msg, recovery := intrFailure(t, res[0])
			if code != "invalid_payload" || recovery != string(planner.RecoveryCorrectCall) || !strings.Contains(msg, "days") {
				t.Fatalf("the model read %s", res[0].Content)
			}
			if got := intrPayloads(f); len(got) != 1 || got[0] != `{"city":"Lyon","days":3}` {
				t.Fatalf("executor payloads %v", got)
			}
		})
	}
}

// intrAwaitPlanner answers its first step with an await, then plans with
// the standard planner.
type intrAwaitPlanner struct {
	std *planner.Standard
}

func (p *intrAwaitPlanner) PlanStart(context.Context, *planner.PlanInput) (*planner.PlanResult, error) {
	return &planner.PlanResult{Await: &planner.Await{Kind: planner.AwaitClarification, Prompt: "Which city?", Fields: []string{"city"}}}, nil
}

func (p *intrAwaitPlanner) PlanResume(ctx context.Context, in *planner.PlanResumeInput) (*planner.PlanResult, error) {
	return p.std.PlanResume(ctx, in)
}

func testInterruptsAllowedPlannerAwait(t *testing.T, newEngine NewEngine) {
	t.Run("not allowed: rejected output", func(t *testing.T) {
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: &intrAwaitPlanner{std: planner.NewStandard()}}, nil, nil,
			scripted.Reply("I will assume Paris."),
		)
		out := f.run("book a hotel")
		if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonFinalResponse || out.Final.Text != "I will assume Paris." {
			t.Fatalf("out = %+v, want the await rejected and the run to go on", out)
		}
		if n := len(eventsOf[runtime.Awaiting](f)); n != 0 {
			t.Fatalf("%d Awaiting events", n)
		}
		reqs := f.model.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		last := reqs[0].Messages[len(reqs[0].Messages)-1]
		if !strings.Contains(last.TextContent(), "rejected") || !strings.Contains(last.TextContent(), "InterruptsAllowed") {
			t.Fatalf("the model was not told why: last message %+v", last)
		}
	})
	t.Run("allowed: suspends, text answer appended", func(t *testing.T) {
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: &intrAwaitPlanner{std: planner.NewStandard()}, Policy: runtime.RunPolicy{InterruptsAllowed: true}}, nil, nil,
			scripted.Reply("Booked in Lyon."),
		)
		out := f.run("book a hotel")
		if out.Status != runtime.StatusSuspended || out.Suspension == nil {
			t.Fatalf("out = %+v, want a suspension", out)
		}
		p := out.Suspension.Pending[0]
		if p.Kind != runtime.PendingClarification || p.Prompt != "Which city?" || len(p.Fields) != 1 || p.Fields[0] != "city" {
			t.Fatalf("pending = %+v", p)
		}
		if n := f.model.Calls(); n != 0 {
			t.Fatalf("%d model requests", n)
		}
		out = f.cont(out.RunID, runtime.PendingInputResponse{Clarification: &runtime.ClarificationAnswer{Text: "Lyon, please"}})
		if out.Status != runtime.StatusCompleted || out.Final.Text != "Booked in Lyon." {
			t.Fatalf("out = %+v", out)
		}
		reqs := f.model.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		msgs := reqs[0].Messages
		last := msgs[len(msgs)-1]
		if last.Role != model.RoleUser || last.TextContent() != "Lyon, please" {
			t.Fatalf("last message %+v, want the answer as a user message", last)
		}
		if msgs[0].Role != model.RoleUser || msgs[0].TextContent() != "book a hotel" {
			t.Fatalf("first message %+v", msgs[0])
		}
	})
}

func testContinueWithWrongAnswerKeepsRunSuspended(t *testing.T, newEngine NewEngine) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	// wrongThenRight answers a suspended run wrongly, expects a clear
	// error naming the expected answer, then answers it rightly.
	wrongThenRight := func(t *testing.T, f *fixture, out *runtime.RunOutput, wrong runtime.PendingInputResponse, want string, right runtime.PendingInputResponse) *runtime.RunOutput {
		t.Helper()
		if out.Status != runtime.StatusSuspended {
			t.Fatalf("status %s", out.Status)
		}
		h, err := f.rt.Continue(ctx, out.RunID, wrong)
		if err == nil {
			_, err = h.Wait(ctx)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want a clear error naming %s", err, want)
		}
		return f.cont(out.RunID, right)
	}
	t.Run("confirmation", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{},
			[]fixtureTool{{spec: cfWriteSpec(t), handler: ok(`{"written":true}`)}},
			scripted.Call("write", `{"key":"k","value":1}`),
			scripted.Reply("done"),
		)
		out := f.run("write")
		out = wrongThenRight(t, f, out,
			runtime.PendingInputResponse{Clarification: &runtime.ClarificationAnswer{Text: "yes"}}, "Confirmation",
			out.Suspension.Pending[0].Approve())
		if out.Status != runtime.StatusCompleted || len(f.executed()) != 1 {
			t.Fatalf("out = %+v, executed %v", out, f.executed())
		}
	})
	t.Run("missing fields", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{OnMissingFields: runtime.MissingFieldsAwaitClarification, InterruptsAllowed: true},
			[]fixtureTool{{spec: intrTripSpec(t)}},
			scripted.Call("trip", `{"city":"Lyon"}`),
			scripted.Reply("done"),
		)
		out := wrongThenRight(t, f, f.run("trip"),
			runtime.PendingInputResponse{Clarification: &runtime.ClarificationAnswer{Text: "3 days"}}, "Clarification.Fields",
			runtime.PendingInputResponse{Clarification: &runtime.ClarificationAnswer{Fields: json.RawMessage(`{"days":3}`)}})
		if out.Status != runtime.StatusCompleted || len(f.executed()) != 1 {
			t.Fatalf("out = %+v, executed %v", out, f.executed())
		}
	})
	t.Run("planner await", func(t *testing.T) {
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: &intrAwaitPlanner{std: planner.NewStandard()}, Policy: runtime.RunPolicy{InterruptsAllowed: true}}, nil, nil,
			scripted.Reply("ok"),
		)
		out := wrongThenRight(t, f, f.run("book"),
			runtime.PendingInputResponse{Confirmation: &runtime.ConfirmationDecision{Approved: true}}, "Clarification.Text",
			runtime.PendingInputResponse{Clarification: &runtime.ClarificationAnswer{Text: "Lyon"}})
		if out.Status != runtime.StatusCompleted {
			t.Fatalf("out = %+v", out)
		}
	})
}
