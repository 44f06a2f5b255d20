package runtime

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestTimeBudgetChargedForActiveTime stays here: it drives the budget
// with a fake workflow clock (inmem.WithClock).
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

// TestTimeBudgetSuspendedTimeNotCounted stays here: it spends an hour
// suspended on a fake workflow clock (inmem.WithClock).
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
