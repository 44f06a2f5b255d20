package runtimetest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

func testMaxRecoveryTurnsOneTurnPerRejectedToolResult(t *testing.T, newEngine NewEngine) {
	// Two recovery turns: the first call plus two retries fail, then one
	// final (uncounted) turn answers.
	p := &capsPlanner{}
	f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p, Policy: runtime.RunPolicy{MaxRecoveryTurns: 2}}, nil, capsTools(t),
		scripted.Call("flaky", `{}`),
		scripted.Call("flaky", `{}`),
		scripted.Call("flaky", `{}`),
		scripted.Reply("The backend is down."),
	)
	out := f.run("Try the flaky tool.")
	capsCheckRun(t, f, p, out)
	if out.Reason != planner.ReasonRecoveryExhausted {
		t.Fatalf("reason %q, want recovery_exhausted", out.Reason)
	}
	if n := f.model.Calls(); n != 4 {
		t.Fatalf("%d model requests, want 4 (1 + 2 recovery turns + the final one)", n)
	}
	if got := f.executed(); len(got) != 3 {
		t.Errorf("executed %v, want 3 flaky calls", got)
	}
	inv := p.invocations()
	for i, in := range inv[:3] {
		if in.Finalize != nil {
			t.Errorf("planner turn %d finalizes early: %+v", i+1, in.Finalize)
		}
	}
	if last := inv[3]; last.Finalize == nil || last.Finalize.Reason != planner.ReasonRecoveryExhausted {
		t.Errorf("final planner turn = %+v, want Finalize recovery_exhausted", last)
	}
	capsLastRequestFinalizes(t, f, "commit")
}

func testMaxRecoveryTurnsNoRecoveryTurnsFinalizesAtOnce(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{MaxRecoveryTurns: runtime.NoRecoveryTurns}, capsTools(t),
		scripted.Call("flaky", `{}`),
		scripted.Reply("The backend is down."),
	)
	out := f.run("Try the flaky tool.")
	capsCheckRun(t, f, nil, out)
	if out.Reason != planner.ReasonRecoveryExhausted || f.model.Calls() != 2 {
		t.Fatalf("reason %q after %d requests, want recovery_exhausted after 2", out.Reason, f.model.Calls())
	}
}

func testMaxRecoveryTurnsRejectedModelOutputCounts(t *testing.T, newEngine NewEngine) {
	p := &capsPlanner{steps: []func() *planner.PlanResult{
		func() *planner.PlanResult { return &planner.PlanResult{} },
		func() *planner.PlanResult { return &planner.PlanResult{} },
		func() *planner.PlanResult {
			return &planner.PlanResult{FinalResponse: &planner.FinalResponse{Text: "Sorry."}}
		},
	}}
	f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p, Policy: runtime.RunPolicy{MaxRecoveryTurns: 1}}, nil, capsTools(t))
	out := f.run("Answer.")
	capsCheckRun(t, f, p, out)
	inv := p.invocations()
	if len(inv) != 3 {
		t.Fatalf("%d planner invocations, want 3 (the output, 1 recovery turn, the final turn)", len(inv))
	}
	if inv[1].Finalize != nil {
		t.Errorf("recovery turn finalizes: %+v", inv[1].Finalize)
	}
	if !slices.ContainsFunc(inv[1].Messages, func(m model.Message) bool {
		return strings.Contains(m.TextContent(), "Your last answer was rejected")
	}) {
		t.Errorf("recovery turn does not tell the model why its answer was rejected: %+v", inv[1].Messages)
	}
	if inv[2].Finalize == nil || inv[2].Finalize.Reason != planner.ReasonRecoveryExhausted {
		t.Errorf("final turn = %+v, want Finalize recovery_exhausted", inv[2])
	}
	if out.Reason != planner.ReasonRecoveryExhausted || out.Final == nil || out.Final.Text != "Sorry." {
		t.Errorf("out = reason %q final %+v", out.Reason, out.Final)
	}
}

func testMaxRecoveryTurnsRefusedCallsCount(t *testing.T, newEngine NewEngine) {
	dx := &capsExec{}
	f := newFixtureWith(t, newEngine,
		runtime.AgentRegistration{Policy: runtime.RunPolicy{MaxRecoveryTurns: 1}, Uses: []runtime.ToolsetUse{{Toolset: "dx", DeferAll: true}}},
		[]runtime.Option{capsToolset("dx", dx, capsSpec(t, "dx", "export"))},
		[]fixtureTool{{spec: newSpec(t, "lookup")}},
		scripted.Call("export", `{}`),
		scripted.Call("export", `{}`),
		scripted.Reply("I cannot export."),
	)
	out := f.run("Export.")
	capsCheckRun(t, f, nil, out)
	if out.Reason != planner.ReasonRecoveryExhausted || f.model.Calls() != 3 {
		t.Fatalf("reason %q after %d requests, want recovery_exhausted after 3", out.Reason, f.model.Calls())
	}
	if len(dx.executed()) != 0 {
		t.Errorf("refused calls executed: %v", dx.executed())
	}
}

func testMaxRecoveryTurnsResetBySuccessfulBudgetedWork(t *testing.T, newEngine NewEngine) {
	t.Run("budgeted success resets", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{MaxRecoveryTurns: 1}, capsTools(t),
			scripted.Call("flaky", `{}`),
			scripted.Call("lookup", `{}`),
			scripted.Call("flaky", `{}`),
			scripted.Call("lookup", `{}`),
			scripted.Reply("Done."),
		)
		out := f.run("Work.")
		capsCheckRun(t, f, nil, out)
		if out.Reason != planner.ReasonFinalResponse || f.model.Calls() != 5 {
			t.Fatalf("reason %q after %d requests, want final_response after 5", out.Reason, f.model.Calls())
		}
		if got := f.executed(); len(got) != 4 {
			t.Errorf("executed %v", got)
		}
	})
	t.Run("bookkeeping success does not reset", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{MaxRecoveryTurns: 1}, capsTools(t),
			scripted.Call("flaky", `{}`),
			scripted.Calls(call("n1", "note"), call("f2", "flaky")),
			scripted.Reply("Giving up."),
		)
		out := f.run("Work.")
		capsCheckRun(t, f, nil, out)
		if out.Reason != planner.ReasonRecoveryExhausted || f.model.Calls() != 3 {
			t.Fatalf("reason %q after %d requests, want recovery_exhausted after 3", out.Reason, f.model.Calls())
		}
	})
}

func testTerminalRunSuccessEndsRunWithoutPlannerTurn(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{}, capsTools(t),
		scripted.Call("lookup", `{}`),
		scripted.Calls(call("c1", "commit")),
	)
	out := f.run("Look up, then commit.")
	capsCheckRun(t, f, nil, out)
	if n := f.model.Calls(); n != 2 {
		t.Fatalf("%d model requests, want 2 (no turn after the terminal tool)", n)
	}
	if out.Reason != planner.ReasonTerminalTool || out.FinalToolResult == nil || string(out.FinalToolResult.Result) != `{"committed":true}` {
		t.Fatalf("out = reason %q, final tool result %+v", out.Reason, out.FinalToolResult)
	}
	if r := capsResultOf(t, out.Messages, "c1"); string(r.Content) != `{"committed":true}` {
		t.Errorf("terminal result in the transcript = %s", r.Content)
	}

	t.Run("a failed terminal call does not end the run", func(t *testing.T) {
		ts := capsTools(t)
		ts[2].handler = capsFails()
		f := newFixture(t, newEngine, runtime.RunPolicy{}, ts,
			scripted.Call("commit", `{}`),
			scripted.Reply("Could not commit."),
		)
		out := f.run("Commit.")
		capsCheckRun(t, f, nil, out)
		if out.Reason != planner.ReasonFinalResponse || f.model.Calls() != 2 {
			t.Fatalf("reason %q after %d requests", out.Reason, f.model.Calls())
		}
	})
}

func testTerminalRunIsFreeUnderMaxToolCalls(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{MaxToolCalls: 1}, capsTools(t),
		scripted.Call("lookup", `{}`),
		scripted.Calls(call("c1", "commit")),
	)
	out := f.run("Look up, then commit.")
	capsCheckRun(t, f, nil, out)
	if out.Reason != planner.ReasonTerminalTool || out.ToolCalls != 1 {
		t.Fatalf("reason %q, ToolCalls %d: want terminal_tool and 1", out.Reason, out.ToolCalls)
	}
	if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.lookup", "ws.commit"}) {
		t.Errorf("executed %v", got)
	}

	t.Run("admitted in the tool_cap finalizing turn", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{MaxToolCalls: 1}, capsTools(t),
			scripted.Call("lookup", `{}`),
			scripted.Calls(call("l2", "lookup")),
			scripted.Calls(call("c1", "commit")),
		)
		out := f.run("Look up twice, then commit.")
		capsCheckRun(t, f, nil, out)
		capsLastRequestFinalizes(t, f, "commit")
		if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.lookup", "ws.commit"}) {
			t.Errorf("executed %v, want the first lookup and the commit", got)
		}
		if out.FinalToolResult == nil || f.model.Calls() != 3 {
			t.Errorf("final tool result %+v after %d requests", out.FinalToolResult, f.model.Calls())
		}
	})
}

func testTerminalRunAdmittedAfterRecoveryBudgetSpent(t *testing.T, newEngine NewEngine) {
	p := &capsPlanner{}
	f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p, Policy: runtime.RunPolicy{MaxRecoveryTurns: runtime.NoRecoveryTurns}}, nil, capsTools(t),
		scripted.Call("flaky", `{}`),
		// The finalizing turn offers only the terminal tool, and runs it.
		scripted.Calls(call("c1", "commit")),
	)
	out := f.run("Try, then commit.")
	capsCheckRun(t, f, p, out)
	inv := p.invocations()
	if len(inv) != 2 || inv[1].Finalize == nil || inv[1].Finalize.Reason != planner.ReasonRecoveryExhausted {
		t.Fatalf("planner turns = %+v, want a finalizing second turn", inv)
	}
	capsLastRequestFinalizes(t, f, "commit")
	if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.flaky", "ws.commit"}) {
		t.Fatalf("executed %v, want the terminal tool to run in the final turn", got)
	}
	if out.FinalToolResult == nil || string(out.FinalToolResult.Result) != `{"committed":true}` {
		t.Errorf("final tool result = %+v", out.FinalToolResult)
	}
	if f.model.Calls() != 2 {
		t.Errorf("%d model requests, want 2", f.model.Calls())
	}

	t.Run("other calls of a finalizing turn are discarded", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{MaxRecoveryTurns: runtime.NoRecoveryTurns}, capsTools(t),
			scripted.Call("flaky", `{}`),
			scripted.Calls(call("l1", "lookup")),
		)
		out := f.run("Try.")
		capsCheckRun(t, f, nil, out)
		if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.flaky"}) {
			t.Errorf("executed %v, want the lookup discarded", got)
		}
		if out.Reason != planner.ReasonRecoveryExhausted {
			t.Errorf("reason %q", out.Reason)
		}
	})
}

func testTerminalRunBookkeepingOnlyTurnMustResolveInSameTurn(t *testing.T, newEngine NewEngine) {
	t.Run("bookkeeping calls alone are a rejected output", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{MaxRecoveryTurns: 1}, capsTools(t),
			scripted.Calls(call("n1", "note")),
			scripted.Reply("Done."),
		)
		out := f.run("Take a note.")
		capsCheckRun(t, f, nil, out)
		if got := f.executed(); len(got) != 0 {
			t.Errorf("executed %v: a bookkeeping-only turn that does not resolve must not run", got)
		}
		if out.Reason != planner.ReasonFinalResponse || f.model.Calls() != 2 {
			t.Fatalf("reason %q after %d requests", out.Reason, f.model.Calls())
		}
		second := f.model.Requests()[1]
		if !slices.ContainsFunc(second.Messages, func(m model.Message) bool {
			return strings.Contains(m.TextContent(), "bookkeeping")
		}) {
			t.Errorf("the recovery turn does not say why the answer was rejected")
		}
	})
	t.Run("spends a recovery turn", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{MaxRecoveryTurns: runtime.NoRecoveryTurns}, capsTools(t),
			scripted.Calls(call("n1", "note")),
			scripted.Reply("Done."),
		)
		out := f.run("Take a note.")
		capsCheckRun(t, f, nil, out)
		if out.Reason != planner.ReasonRecoveryExhausted {
			t.Fatalf("reason %q, want recovery_exhausted", out.Reason)
		}
	})
	t.Run("with a final response they run and end the run", func(t *testing.T) {
		p := &capsPlanner{steps: []func() *planner.PlanResult{func() *planner.PlanResult {
			res := capsPlan("All noted.", capsCall("n1", "note"), capsCall("n2", "note"))
			res.FinalResponse = &planner.FinalResponse{Text: "All noted."}
			return res
		}}}
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p}, nil, capsTools(t))
		out := f.run("Take notes.")
		capsCheckRun(t, f, p, out)
		if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.note", "ws.note"}) {
			t.Errorf("executed %v", got)
		}
		if len(p.invocations()) != 1 || out.Reason != planner.ReasonFinalResponse || out.Final == nil || out.Final.Text != "All noted." {
			t.Errorf("%d planner turns, reason %q, final %+v", len(p.invocations()), out.Reason, out.Final)
		}
	})
	t.Run("with a final tool result they run and end the run", func(t *testing.T) {
		p := &capsPlanner{steps: []func() *planner.PlanResult{func() *planner.PlanResult {
			res := capsPlan("", capsCall("n1", "note"))
			res.FinalToolResult = &planner.ToolResult{Result: json.RawMessage(`{"report":"ok"}`)}
			return res
		}}}
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p}, nil, capsTools(t))
		out := f.run("Take notes.")
		capsCheckRun(t, f, p, out)
		if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.note"}) {
			t.Errorf("executed %v", got)
		}
		if len(p.invocations()) != 1 || out.Reason != planner.ReasonFinalToolResult || out.FinalToolResult == nil || string(out.FinalToolResult.Result) != `{"report":"ok"}` {
			t.Errorf("%d planner turns, reason %q, final tool result %+v", len(p.invocations()), out.Reason, out.FinalToolResult)
		}
	})
	t.Run("budgeted calls with a final response are a rejected output", func(t *testing.T) {
		p := &capsPlanner{steps: []func() *planner.PlanResult{
			func() *planner.PlanResult {
				res := capsPlan("", capsCall("l1", "lookup"))
				res.FinalResponse = &planner.FinalResponse{Text: "Premature."}
				return res
			},
			func() *planner.PlanResult {
				return capsPlan("", capsCall("l2", "lookup"))
			},
			func() *planner.PlanResult {
				return &planner.PlanResult{FinalResponse: &planner.FinalResponse{Text: "3 rows."}}
			},
		}}
		f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p}, nil, capsTools(t))
		out := f.run("Look up.")
		capsCheckRun(t, f, p, out)
		if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.lookup"}) {
			t.Errorf("executed %v, want only the second lookup", got)
		}
		if out.Reason != planner.ReasonFinalResponse || out.Final.Text != "3 rows." {
			t.Errorf("reason %q final %+v", out.Reason, out.Final)
		}
	})
}
