package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// tbClock is a fake workflow clock that tests advance by hand.
type tbClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTBClock() *tbClock {
	return &tbClock{now: time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *tbClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *tbClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// tbAdvance is a handler that advances clk by d (the tool "takes" d of
// workflow time) and succeeds.
func tbAdvance(clk *tbClock, d time.Duration) handler {
	return func(context.Context, *ToolCall) (*planner.ToolResult, error) {
		clk.Advance(d)
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}
}

// tbUntilCanceled is a slow tool: it waits for its context to end (its
// attempt's timeout), with a generous safety limit so a broken timeout
// fails the test instead of hanging it.
func tbUntilCanceled(sawDeadline *atomic.Bool) handler {
	return func(ctx context.Context, _ *ToolCall) (*planner.ToolResult, error) {
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

func TestTimeBudgetAndTimingRejectedTogether(t *testing.T) {
	rt, err := New(WithModel(model.ModelClassDefault, scripted.New()))
	if err != nil {
		t.Fatal(err)
	}
	err = rt.RegisterAgent(AgentRegistration{
		Name:    "both",
		Planner: planner.NewStandard(),
		Policy:  RunPolicy{TimeBudget: time.Minute, Timing: &Timing{Budget: time.Minute}},
	})
	if err == nil || !strings.Contains(err.Error(), "TimeBudget") || !strings.Contains(err.Error(), "Timing") {
		t.Fatalf("TimeBudget with Timing: err = %v, want a registration error naming both", err)
	}
	for name, p := range map[string]RunPolicy{
		"time-budget": {TimeBudget: time.Minute},
		"timing":      {Timing: &Timing{Budget: time.Minute, Plan: time.Second, Tools: time.Second}},
	} {
		if err := rt.RegisterAgent(AgentRegistration{Name: name, Planner: planner.NewStandard(), Policy: p}); err != nil {
			t.Fatalf("%s alone: %v", name, err)
		}
	}
}

func TestTimeBudgetFinalizesWithFinalTurn(t *testing.T) {
	const budget = 150 * time.Millisecond
	for name, policy := range map[string]RunPolicy{
		"TimeBudget":    {TimeBudget: budget},
		"Timing.Budget": {Timing: &Timing{Budget: budget}},
	} {
		t.Run(name, func(t *testing.T) {
			var sawDeadline atomic.Bool
			f := newFixture(t, policy,
				[]fixtureTool{{spec: newSpec(t, "slow"), handler: tbUntilCanceled(&sawDeadline)}},
				scripted.Call("slow", `{}`),
				// The final turn runs after the budget is spent and takes
				// longer than the whole budget: the finalizer grace lets it.
				tbSlowReply(2*budget, "Out of time: here is what I have."),
			)
			tbWarm(t, f)
			start := time.Now()
			out := f.run("do the slow thing")
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("run took %s: the slow tool was not cut off at the budget", took)
			}
			if out.Status != StatusCompleted || out.Reason != planner.ReasonTimeBudget {
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
			if done := eventsOf[RunCompleted](f); len(done) != 1 || done[0].Reason != planner.ReasonTimeBudget {
				t.Fatalf("RunCompleted events = %+v", done)
			}
		})
	}
}

func TestTimeBudgetChargedForActiveTime(t *testing.T) {
	// With a fake workflow clock, a tool that "takes" longer than the
	// budget spends it: the next step is the final turn.
	clk := newTBClock()
	f := newFixtureWith(t, AgentRegistration{Policy: RunPolicy{TimeBudget: 10 * time.Second}},
		[]Option{WithEngine(inmem.New(inmem.WithClock(clk.Now)))},
		[]fixtureTool{{spec: newSpec(t, "work"), handler: tbAdvance(clk, 11*time.Second)}},
		scripted.Call("work", `{}`),
		scripted.Reply("Stopping here."),
	)
	out := f.run("work")
	if out.Reason != planner.ReasonTimeBudget || out.Final == nil || out.Final.Text != "Stopping here." {
		t.Fatalf("reason %q final %+v, want %q through the final turn", out.Reason, out.Final, planner.ReasonTimeBudget)
	}
	if reqs := f.model.Requests(); len(reqs) != 2 || len(reqs[1].Tools) != 0 {
		t.Fatalf("requests = %d, final turn tools = %v", len(reqs), reqs[len(reqs)-1].Tools)
	}
}

func TestTimeBudgetSuspendedTimeNotCounted(t *testing.T) {
	// Budget 10s. Before the suspension a tool spends 4s; the run then waits
	// an hour for a confirmation; after it the confirmed tool spends some
	// more. Only the active time counts.
	cases := []struct {
		name       string
		afterSpend time.Duration
		want       planner.TerminationReason
	}{
		{"within budget", 4 * time.Second, planner.ReasonFinalResponse},
		// Active time before the suspension is carried over: 4s + 7s > 10s.
		{"active time carried over", 7 * time.Second, planner.ReasonTimeBudget},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := newTBClock()
			f := newFixtureWith(t, AgentRegistration{Policy: RunPolicy{TimeBudget: 10 * time.Second}},
				[]Option{WithEngine(inmem.New(inmem.WithClock(clk.Now)))},
				[]fixtureTool{
					{spec: newSpec(t, "prepare"), handler: tbAdvance(clk, 4*time.Second)},
					{spec: newSpec(t, "commit", func(s *tools.ToolSpec) {
						s.Confirmation = &tools.ConfirmationSpec{PromptTemplate: "Commit?"}
					}), handler: tbAdvance(clk, tc.afterSpend)},
				},
				scripted.Calls(scripted.ToolCallSpec{Name: "prepare"}, scripted.ToolCallSpec{Name: "commit"}),
				scripted.Reply("Done."),
			)
			out := f.run("prepare and commit")
			if out.Status != StatusSuspended {
				t.Fatalf("status %s, want suspended for the confirmation", out.Status)
			}
			clk.Advance(time.Hour) // waiting for the approver
			out = f.cont(out.RunID, out.Suspension.Pending[0].Approve())
			if out.Status != StatusCompleted || out.Reason != tc.want {
				t.Fatalf("status %s reason %q, want %q", out.Status, out.Reason, tc.want)
			}
			if got := f.executed(); len(got) != 2 {
				t.Fatalf("executed %v", got)
			}
		})
	}
}

func TestTimingToolsTimeoutIsResultModelReads(t *testing.T) {
	var sawDeadline atomic.Bool
	f := newFixture(t, RunPolicy{Timing: &Timing{Tools: 20 * time.Millisecond}},
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
	if out.Status != StatusCompleted || out.Reason != planner.ReasonFinalResponse {
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
	if c := string(res[0].Content); !strings.Contains(c, "timeout") || !strings.Contains(c, "20ms") {
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

func TestTimingPlanTimeoutBoundsPlanningAttempt(t *testing.T) {
	t.Run("slower than Timing.Plan", func(t *testing.T) {
		p := &tbPlanner{block: true, std: planner.NewStandard()}
		f := newFixtureWith(t, AgentRegistration{Planner: p, Policy: RunPolicy{Timing: &Timing{Plan: 20 * time.Millisecond}}}, nil, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := f.rt.Run(ctx, "assistant", RunInput{Messages: []model.Message{model.UserMessage("hi")}})
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
		f := newFixtureWith(t, AgentRegistration{Planner: p, Policy: RunPolicy{Timing: &Timing{Plan: 5 * time.Second}}}, nil, nil,
			scripted.Reply("hello"))
		if out := f.run("hi"); out.Reason != planner.ReasonFinalResponse {
			t.Fatalf("reason %q", out.Reason)
		}
	})
}
