package runtimetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// failFirst fails its first n calls with the given recovery, then succeeds.
func failFirst(n int, recovery planner.RecoveryAction) handler {
	var calls atomic.Int32
	return func(context.Context, *runtime.ToolCall) (*planner.ToolResult, error) {
		if int(calls.Add(1)) <= n {
			return &planner.ToolResult{Failure: &planner.ToolFailure{Code: "conflict", Message: "status changed meanwhile", Recovery: recovery}}, nil
		}
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}
}

// bookkeepingWithAnswer plans, every step, a bookkeeping call together with
// the answer — the way a bookkeeping-only turn resolves in the same turn.
type bookkeepingWithAnswer struct{ steps atomic.Int32 }

func (p *bookkeepingWithAnswer) plan() (*planner.PlanResult, error) {
	id := fmt.Sprintf("c%d", p.steps.Add(1))
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

func testBookkeepingFailureReopensTheTurnWithoutCostingRecovery(t *testing.T, newEngine NewEngine) {
	p := &bookkeepingWithAnswer{}
	f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p, Policy: runtime.RunPolicy{MaxRecoveryTurns: runtime.NoRecoveryTurns}}, nil,
		[]fixtureTool{{spec: newSpec(t, "setStatus", bookkeeping()), handler: failFirst(1, planner.RecoveryCorrectCall)}},
	)
	out := f.run("mark it done")
	// With no recovery turn allowed, charging the failure would finalize
	// the run; ignoring it would end the run after one step.
	if out.Reason != planner.ReasonFinalResponse || p.steps.Load() != 2 || len(f.executed()) != 2 {
		t.Fatalf("out = %+v after %d steps and %d calls; want the failed bookkeeping call to reopen the turn for free", out, p.steps.Load(), len(f.executed()))
	}
}

func testFailureAskingToFinishFinalizesTheRun(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{},
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
