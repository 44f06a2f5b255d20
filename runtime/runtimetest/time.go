package runtimetest

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// tbUntilCanceled is a slow tool: it waits for its context to end (its
// attempt's timeout), with a generous safety limit so a broken timeout
// fails the test instead of hanging it.
func tbUntilCanceled(sawDeadline *atomic.Bool) handler {
	return func(ctx context.Context, _ *runtime.ToolCall) (*planner.ToolResult, error) {
		_, has := ctx.Deadline()
		sawDeadline.Store(has)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return &planner.ToolResult{Result: []byte(`{"finished":"too late"}`)}, nil
		}
	}
}

// tbSlowReply is a final model step that takes d before answering.
func tbSlowReply(d time.Duration, text string) scripted.Step {
	return scripted.Func(func(*model.Request) (*model.Response, error) {
		time.Sleep(d)
		return &model.Response{
			Messages:   []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.Text(text)}}},
			StopReason: model.StopEndTurn,
			Usage:      model.Usage{InputTokens: 1, OutputTokens: 1},
		}, nil
	})
}

// tbWarm loads the scripted model's token counter so the first planning
// step does not spend the run's small budget loading vocabularies.
func tbWarm(t *testing.T, f *fixture) {
	t.Helper()
	if _, err := f.model.CountTokens(context.Background(), "", nil); err != nil {
		t.Fatal(err)
	}
}

func testTimeBudgetFinalizesWithFinalTurn(t *testing.T, newEngine NewEngine) {
	const budget = 500 * time.Millisecond
	for name, policy := range map[string]runtime.RunPolicy{
		"TimeBudget":    {TimeBudget: budget},
		"Timing.Budget": {Timing: &runtime.Timing{Budget: budget}},
	} {
		t.Run(name, func(t *testing.T) {
			var sawDeadline atomic.Bool
			f := newFixture(t, newEngine, policy,
				[]fixtureTool{{spec: newSpec(t, "slow"), handler: tbUntilCanceled(&sawDeadline)}},
				scripted.Call("slow", `{}`),
				// The final turn runs after the budget is spent and takes
				// longer than the whole budget: the finalizer grace lets it.
				tbSlowReply(2*budget, "Out of time: here is what I have."),
			)
			tbWarm(t, f)
			// The slow tool runs until its attempt ends: only the budget
			// ends it (a safety limit aside, whose result is no failure).
			out := f.run("do the slow thing")
			if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonTimeBudget {
				t.Fatalf("status %s reason %q, want completed with %q", out.Status, out.Reason, planner.ReasonTimeBudget)
			}
			if out.Final == nil || out.Final.Text != "Out of time: here is what I have." {
				t.Fatalf("final = %+v, want the final turn's answer", out.Final)
			}
			if !sawDeadline.Load() {
				t.Fatal("the tool attempt had no deadline: the budget does not bound tools")
			}
			reqs := f.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want the first step and the final turn", len(reqs))
			}
			final := reqs[1]
			if len(final.Tools) != 0 || final.ToolChoice.Mode != model.ToolChoiceNone {
				t.Fatalf("final turn advertised %d tools with tool choice %q, want none", len(final.Tools), final.ToolChoice.Mode)
			}
			res := toolResults(final.Messages)
			if len(res) != 1 || !res[0].IsError {
				t.Fatalf("final turn tool results = %+v, want the slow call's failure", res)
			}
			if done := eventsOf[runtime.RunCompleted](f); len(done) != 1 || done[0].Reason != planner.ReasonTimeBudget {
				t.Fatalf("RunCompleted events = %+v", done)
			}
		})
	}
}

func testTimingToolsTimeoutIsResultModelReads(t *testing.T, newEngine NewEngine) {
	var sawDeadline atomic.Bool
	f := newFixture(t, newEngine, runtime.RunPolicy{Timing: &runtime.Timing{Tools: 500 * time.Millisecond}},
		[]fixtureTool{
			{spec: newSpec(t, "slow"), handler: tbUntilCanceled(&sawDeadline)},
			{spec: newSpec(t, "fast"), handler: ok(`{"rows":1}`)},
		},
		scripted.Call("slow", `{}`),
		scripted.Call("fast", `{}`),
		scripted.Reply("The slow tool timed out; the fast one found 1 row."),
	)
	tbWarm(t, f)
	out := f.run("try both")
	if out.Status != runtime.StatusCompleted || out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("status %s reason %q: a tool timeout must not end the run", out.Status, out.Reason)
	}
	if !sawDeadline.Load() {
		t.Fatal("the tool attempt had no deadline")
	}
	reqs := f.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	res := toolResults(reqs[1].Messages)
	if len(res) != 1 || !res[0].IsError {
		t.Fatalf("results after the slow call = %+v, want one failure", res)
	}
	if c := string(res[0].Content); !strings.Contains(c, "timeout") || !strings.Contains(c, "500ms") {
		t.Fatalf("the model read %s, want a timeout failure naming the limit", c)
	}
	if res := toolResults(reqs[2].Messages); len(res) != 2 || string(res[1].Content) != `{"rows":1}` {
		t.Fatalf("results after the fast call = %+v", res)
	}
	if got := f.executed(); len(got) != 2 {
		t.Fatalf("executed %v", got)
	}
}

// tbPlanner blocks its first planning step until the attempt's context
// ends (or a safety limit passes), then delegates to the standard planner.
type tbPlanner struct {
	block       bool
	sawDeadline atomic.Bool
	std         *planner.Standard
}

func (p *tbPlanner) PlanStart(ctx context.Context, in *planner.PlanInput) (*planner.PlanResult, error) {
	if p.block {
		_, has := ctx.Deadline()
		p.sawDeadline.Store(has)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return nil, errors.New("tbPlanner: safety limit reached: the plan timeout did not apply")
		}
	}
	return p.std.PlanStart(ctx, in)
}

func (p *tbPlanner) PlanResume(ctx context.Context, in *planner.PlanResumeInput) (*planner.PlanResult, error) {
	return p.std.PlanResume(ctx, in)
}

func testTimingPlanTimeoutBoundsPlanningAttempt(t *testing.T, newEngine NewEngine) {
	t.Run("slower than Timing.Plan", func(t *testing.T) {
		p := &tbPlanner{block: true, std: planner.NewStandard()}
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p, Policy: runtime.RunPolicy{Timing: &runtime.Timing{Plan: 500 * time.Millisecond}}}, nil, nil)
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		_, err := f.rt.Run(ctx, "assistant", runtime.RunInput{Messages: []model.Message{model.UserMessage("hi")}})
		if err == nil {
			t.Fatal("a planning attempt slower than Timing.Plan succeeded")
		}
		if !errors.Is(err, engine.ErrTimeout) || !strings.Contains(err.Error(), "planning step 1") {
			t.Fatalf("err = %v, want a timeout of planning step 1", err)
		}
		if !p.sawDeadline.Load() {
			t.Fatal("the planning attempt had no deadline")
		}
	})
	t.Run("within Timing.Plan", func(t *testing.T) {
		p := &tbPlanner{std: planner.NewStandard()}
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p, Policy: runtime.RunPolicy{Timing: &runtime.Timing{Plan: 5 * time.Second}}}, nil, nil,
			scripted.Reply("hello"))
		if out := f.run("hi"); out.Reason != planner.ReasonFinalResponse {
			t.Fatalf("reason %q", out.Reason)
		}
	})
}
