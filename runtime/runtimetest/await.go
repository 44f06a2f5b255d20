package runtimetest

import (
	"context"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// awaitConfirmPlanner asks for a confirmation on its first step, then plans
// with the standard planner.
type awaitConfirmPlanner struct{ std *planner.Standard }

func (p *awaitConfirmPlanner) PlanStart(context.Context, *planner.PlanInput) (*planner.PlanResult, error) {
	return &planner.PlanResult{Await: &planner.Await{Kind: planner.AwaitConfirmation, Prompt: "Send the report to all customers?"}}, nil
}

func (p *awaitConfirmPlanner) PlanResume(ctx context.Context, in *planner.PlanResumeInput) (*planner.PlanResult, error) {
	return p.std.PlanResume(ctx, in)
}

func testPlannerConfirmationAwaitIsAnsweredWithADecision(t *testing.T, newEngine NewEngine) {
	for _, approved := range []bool{true, false} {
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: &awaitConfirmPlanner{std: planner.NewStandard()}, Policy: runtime.RunPolicy{InterruptsAllowed: true}}, nil, nil,
			scripted.Reply("ok"),
		)
		out := f.run("send the report")
		if out.Suspension == nil || out.Suspension.Pending[0].Kind != runtime.PendingConfirmation {
			t.Fatalf("out = %+v, want a pending confirmation", out)
		}
		_, err := f.rt.Continue(context.Background(), out.RunID, runtime.PendingInputResponse{Clarification: &runtime.ClarificationAnswer{Text: "yes"}})
		if err == nil || !strings.Contains(err.Error(), "PendingInputResponse.Confirmation") {
			t.Fatalf("a text answer to a confirmation: err = %v", err)
		}
		out = f.cont(out.RunID, runtime.PendingInputResponse{Confirmation: &runtime.ConfirmationDecision{Approved: approved}})
		if out.Status != runtime.StatusCompleted {
			t.Fatalf("out = %+v", out)
		}
		want := map[bool]string{true: "Approved.", false: "Denied."}[approved]
		msgs := f.model.Requests()[0].Messages
		if got := msgs[len(msgs)-1].TextContent(); got != want {
			t.Errorf("approved=%v: the planner read %q, want %q", approved, got, want)
		}
	}
}
