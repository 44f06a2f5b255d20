package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
)

// failFirst fails its first n calls with the given recovery, then succeeds.
func failFirst(n int, recovery planner.RecoveryAction) handler {
	calls := 0
	return func(context.Context, *ToolCall) (*planner.ToolResult, error) {
		calls++
		if calls <= n {
			return &planner.ToolResult{Failure: &planner.ToolFailure{Code: "conflict", Message: "status changed meanwhile", Recovery: recovery}}, nil
		}
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}
}

// bookkeepingWithAnswer plans, every step, a bookkeeping call together with
// the answer — the way a bookkeeping-only turn resolves in the same turn.
type bookkeepingWithAnswer struct{ steps int }

func (p *bookkeepingWithAnswer) plan() (*planner.PlanResult, error) {
	p.steps++
	id := fmt.Sprintf("c%d", p.steps)
	call := model.ToolCall{ID: id, Name: "setStatus", Payload: []byte(`{"q":"done"}`)}
	return &planner.PlanResult{
		Messages:      []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &call}}}},
		ToolCalls:     []planner.ToolRequest{{CallID: id, Name: "setStatus", Payload: call.Payload}},
		FinalResponse: &planner.FinalResponse{Text: "Done."},
	}, nil
}

func (p *bookkeepingWithAnswer) PlanStart(context.Context, *planner.PlanInput) (*planner.PlanResult, error) {
	return p.plan()
}

func (p *bookkeepingWithAnswer) PlanResume(context.Context, *planner.PlanResumeInput) (*planner.PlanResult, error) {
	return p.plan()
}

func TestBookkeepingFailureReopensTheTurnWithoutCostingRecovery(t *testing.T) {
	p := &bookkeepingWithAnswer{}
	f := newFixtureWith(t, AgentRegistration{Planner: p, Policy: RunPolicy{MaxRecoveryTurns: NoRecoveryTurns}}, nil,
		[]fixtureTool{{spec: newSpec(t, "setStatus", bookkeeping()), handler: failFirst(1, planner.RecoveryCorrectCall)}},
	)
	out := f.run("mark it done")
	// With no recovery turn allowed, charging the failure would finalize
	// the run; ignoring it would end the run after one step.
	if out.Reason != planner.ReasonFinalResponse || p.steps != 2 || len(f.executed()) != 2 {
		t.Fatalf("out = %+v after %d steps and %d calls; want the failed bookkeeping call to reopen the turn for free", out, p.steps, len(f.executed()))
	}
}

func TestBookkeepingFailuresHaveASafetyNet(t *testing.T) {
	p := &bookkeepingWithAnswer{}
	f := newFixtureWith(t, AgentRegistration{Planner: p}, nil,
		[]fixtureTool{{spec: newSpec(t, "setStatus", bookkeeping()), handler: failFirst(1000, planner.RecoveryCorrectCall)}},
	)
	out := f.run("loop")
	if out.Reason != planner.ReasonRecoveryExhausted {
		t.Fatalf("reason = %s, want recovery_exhausted", out.Reason)
	}
	if got, want := len(f.executed()), maxBookkeepingFailureTurns+1; got != want {
		t.Fatalf("executed %d failing bookkeeping calls, want %d", got, want)
	}
}

func TestFailureAskingToFinishFinalizesTheRun(t *testing.T) {
	f := newFixture(t, RunPolicy{},
		[]fixtureTool{{spec: newSpec(t, "charge"), handler: failFirst(1, planner.RecoveryFinish)}},
		scripted.Call("charge", `{"q":"42"}`),
		scripted.Reply("I could not charge the card."),
	)
	out := f.run("charge it")
	if out.Reason != planner.ReasonToolFailure || out.Final == nil || out.Final.Text != "I could not charge the card." {
		t.Fatalf("out = %+v, want a final turn with reason tool_failure", out)
	}
	if reqs := f.model.Requests(); len(reqs[1].Tools) != 0 {
		t.Fatalf("the finalizing request advertised %d tools", len(reqs[1].Tools))
	}
}
