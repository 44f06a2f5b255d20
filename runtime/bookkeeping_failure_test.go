package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiver-go/quiver/model"
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

// TestBookkeepingFailuresHaveASafetyNet stays here: it reads the
// runtime's internal limit (maxBookkeepingFailureTurns).
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
