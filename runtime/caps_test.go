package runtime

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// The run-policy rules of issue 3 about caps, recovery turns, terminal and
// bookkeeping tools, unavailable tools and payload teaching errors. Every
// test also checks that each recorded model request (and the run's output)
// is a valid transcript: each tool call answered exactly once, right after
// it.

// capsTools are ws.lookup (budgeted), ws.note (bookkeeping), ws.commit
// (terminal) and ws.flaky (budgeted, always fails).
func capsTools(t *testing.T) []fixtureTool {
	return []fixtureTool{
		{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)},
		{spec: newSpec(t, "note", bookkeeping()), handler: ok(`{"noted":true}`)},
		{spec: newSpec(t, "commit", terminal()), handler: ok(`{"committed":true}`)},
		{spec: newSpec(t, "flaky"), handler: capsFails()},
	}
}

func call(id, name string) scripted.ToolCallSpec {
	return scripted.ToolCallSpec{ID: id, Name: name}
}

// capsLastRequestFinalizes checks that the last model request is a
// finalizing one: no tools but the allowed ones advertised, tool choice
// none when there are none.
func capsLastRequestFinalizes(t *testing.T, f *fixture, allowed ...string) {
	t.Helper()
	reqs := f.model.Requests()
	last := reqs[len(reqs)-1]
	var names []string
	for _, d := range last.Tools {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, allowed) {
		t.Errorf("finalizing request advertises %v, want %v", names, allowed)
	}
	if len(allowed) == 0 && last.ToolChoice.Mode != model.ToolChoiceNone {
		t.Errorf("finalizing request tool choice = %+v, want none", last.ToolChoice)
	}
}

func TestMaxToolCallsBookkeepingCallsCostNothing(t *testing.T) {
	f := newFixture(t, RunPolicy{MaxToolCalls: 1}, capsTools(t),
		scripted.Calls(call("n1", "note"), call("n2", "note"), call("l1", "lookup")),
		scripted.Reply("3 rows, noted."),
	)
	out := f.run("Count the rows and take notes.")
	capsCheckRun(t, f, nil, out)
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("reason = %q, want final_response (bookkeeping calls must not count toward MaxToolCalls)", out.Reason)
	}
	if got := f.executed(); len(got) != 3 {
		t.Errorf("executed %v, want the two notes and the lookup", got)
	}
	if out.ToolCalls != 1 {
		t.Errorf("ToolCalls = %d, want 1 (only the lookup is budgeted)", out.ToolCalls)
	}
}

func TestMaxToolCallsBatchAdmittedWholeOrRejectedWhole(t *testing.T) {
	p := &capsPlanner{}
	// No terminal tool: a finalizing turn advertises nothing.
	noTerminal := slices.DeleteFunc(capsTools(t), func(ft fixtureTool) bool { return ft.spec.TerminalRun })
	f := newFixtureWith(t, AgentRegistration{Planner: p, Policy: RunPolicy{MaxToolCalls: 2}}, nil, noTerminal,
		scripted.Call("lookup", `{"q":"a"}`),
		// Needs 2 budgeted calls with 1 left: nothing of it may run, not
		// even the free bookkeeping call or the first lookup.
		scripted.Calls(call("b1", "note"), call("b2", "lookup"), call("b3", "lookup")),
		scripted.Reply("I ran out of tool calls."),
	)
	out := f.run("Look things up.")
	capsCheckRun(t, f, p, out)
	if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.lookup"}) {
		t.Fatalf("executed %v, want only the first lookup (a batch is never trimmed)", got)
	}
	if out.Reason != planner.ReasonToolCap || out.Status != StatusCompleted {
		t.Fatalf("status %q reason %q, want completed with tool_cap", out.Status, out.Reason)
	}
	if out.Final == nil || out.Final.Text != "I ran out of tool calls." {
		t.Errorf("final = %+v", out.Final)
	}
	if out.ToolCalls != 1 {
		t.Errorf("ToolCalls = %d, want 1", out.ToolCalls)
	}
	if f.model.Calls() != 3 {
		t.Fatalf("%d model requests, want 3", f.model.Calls())
	}
	inv := p.invocations()
	if last := inv[len(inv)-1]; last.Finalize == nil || last.Finalize.Reason != planner.ReasonToolCap || !last.Finalizing || len(last.Tools) != 0 {
		t.Errorf("final planner turn = %+v, want Finalize tool_cap with no tools advertised", last)
	}
	capsLastRequestFinalizes(t, f)
	for _, id := range []string{"b1", "b2", "b3"} {
		if fl := capsDecodeFailure(t, capsResultOf(t, out.Messages, id)); fl.Error != "tool_cap" {
			t.Errorf("result of %s = %+v, want tool_cap", id, fl)
		}
	}
	if ev := eventsOf[RunCompleted](f); len(ev) != 1 || ev[0].Reason != planner.ReasonToolCap {
		t.Errorf("RunCompleted events = %+v", ev)
	}
}

func TestMaxToolCallsRefusedCallsDoNotCount(t *testing.T) {
	for _, tc := range []struct {
		name   string
		search model.SearchSettings
		want   string
	}{
		// Inline wire names sorted: aa.zeta comes first by ident, last by
		// wire name.
		{"native", model.SearchSettings{}, "Tool 'export' not in active set. Call tool_search(query='export') to discover it, or use one of: lookup, note, zeta"},
		{"portable", model.SearchSettings{Mode: model.SearchPortable}, "Tool 'export' not in active set. Call search_tools(query='export') to discover it, or use one of: lookup, note, zeta"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dx := &capsExec{}
			f := newFixtureWith(t,
				AgentRegistration{Policy: RunPolicy{MaxToolCalls: 1}, Search: tc.search, Uses: []ToolsetUse{{Toolset: "dx", DeferAll: true}, {Toolset: "aa"}}},
				[]Option{capsToolset("dx", dx, capsSpec(t, "dx", "export")), capsToolset("aa", dx, capsSpec(t, "aa", "zeta"))},
				[]fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}, {spec: newSpec(t, "note", bookkeeping())}},
				// The refused call does not count: the lookup still fits a
				// cap of 1.
				scripted.Calls(call("x1", "export"), call("l1", "lookup")),
				scripted.Reply("3 rows; export needs a search first."),
			)
			out := f.run("Look up and export.")
			capsCheckRun(t, f, nil, out)
			if got := dx.executed(); len(got) != 0 {
				t.Errorf("refused call executed: %v", got)
			}
			if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.lookup"}) {
				t.Errorf("executed %v, want the lookup", got)
			}
			if out.Reason != planner.ReasonFinalResponse || out.ToolCalls != 1 {
				t.Fatalf("reason %q, ToolCalls %d: want final_response and 1 (refused calls do not count)", out.Reason, out.ToolCalls)
			}
			fl := capsDecodeFailure(t, capsResultOf(t, out.Messages, "x1"))
			if fl.Message != tc.want {
				t.Errorf("refusal message = %q\nwant %q", fl.Message, tc.want)
			}
		})
	}
}

func TestMaxToolCallsRefusedBeforeCapCheck(t *testing.T) {
	dx := &capsExec{}
	f := newFixtureWith(t,
		AgentRegistration{Policy: RunPolicy{MaxToolCalls: 1}, Uses: []ToolsetUse{{Toolset: "dx", DeferAll: true}}},
		[]Option{capsToolset("dx", dx, capsSpec(t, "dx", "export"))},
		[]fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}},
		scripted.Call("lookup", `{}`),
		// The refused call is decided before the cap: it reads its refusal
		// even though the rest of the batch is rejected for the cap.
		scripted.Calls(call("x1", "export"), call("l2", "lookup")),
		scripted.Reply("Stopped."),
	)
	out := f.run("Look up twice and export.")
	capsCheckRun(t, f, nil, out)
	if out.Reason != planner.ReasonToolCap {
		t.Fatalf("reason %q, want tool_cap", out.Reason)
	}
	if len(dx.executed()) != 0 || len(f.executed()) != 1 {
		t.Errorf("executed ws %v, dx %v: want only the first lookup", f.executed(), dx.executed())
	}
	if fl := capsDecodeFailure(t, capsResultOf(t, out.Messages, "x1")); fl.Error != "not_in_active_set" || !strings.HasPrefix(fl.Message, "Tool 'export' not in active set.") {
		t.Errorf("refused call reads %+v, want its refusal", fl)
	}
	if fl := capsDecodeFailure(t, capsResultOf(t, out.Messages, "l2")); fl.Error != "tool_cap" {
		t.Errorf("capped call reads %+v, want tool_cap", fl)
	}
}

func TestMaxToolCallsUnknownToolsCountAsBudgeted(t *testing.T) {
	f := newFixture(t, RunPolicy{MaxToolCalls: 1}, capsTools(t),
		scripted.Calls(call("g1", "ghost")),
		// The unknown call used the only budgeted call.
		scripted.Calls(call("l1", "lookup")),
		scripted.Reply("Out of calls."),
	)
	out := f.run("Call a ghost.")
	capsCheckRun(t, f, nil, out)
	fl := capsDecodeFailure(t, capsResultOf(t, out.Messages, "g1"))
	if fl.Error != "tool_unavailable" || !strings.Contains(fl.Message, "'ghost'") {
		t.Errorf("unknown call reads %+v, want tool_unavailable naming it", fl)
	}
	if out.Reason != planner.ReasonToolCap || out.ToolCalls != 1 {
		t.Fatalf("reason %q, ToolCalls %d: want tool_cap and 1 (unknown tools count as budgeted)", out.Reason, out.ToolCalls)
	}
	if got := f.executed(); len(got) != 0 {
		t.Errorf("executed %v, want nothing", got)
	}
}

func TestMaxToolCallsSuccessfulBookkeepingLeftOutOfToolOutputs(t *testing.T) {
	p := &capsPlanner{}
	ts := append(capsTools(t), fixtureTool{spec: newSpec(t, "badnote", bookkeeping()), handler: capsFails()})
	f := newFixtureWith(t, AgentRegistration{Planner: p}, nil, ts,
		scripted.Calls(call("n1", "note"), call("l1", "lookup"), call("bn1", "badnote"), call("g1", "ghost")),
		scripted.Calls(call("l2", "lookup")),
		scripted.Reply("Done."),
	)
	out := f.run("Note and look up.")
	capsCheckRun(t, f, p, out)
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("reason %q", out.Reason)
	}
	inv := p.invocations()
	if len(inv) != 3 {
		t.Fatalf("%d planner invocations, want 3", len(inv))
	}
	// The successful bookkeeping result is left out; the failed
	// bookkeeping call and the unknown tool's failure are kept.
	if got, want := capsOutputIDs(inv[1].ToolOutputs), []string{"l1", "bn1", "g1"}; !slices.Equal(got, want) {
		t.Errorf("ToolOutputs after step 1 = %v, want %v", got, want)
	}
	// Compact outputs are the previous step's, not the run's so far.
	if got, want := capsOutputIDs(inv[2].ToolOutputs), []string{"l2"}; !slices.Equal(got, want) {
		t.Errorf("ToolOutputs after step 2 = %v, want %v", got, want)
	}
	// The bookkeeping result stays in the transcript and in events.
	reqs := f.model.Requests()
	if r := capsResultOf(t, reqs[1].Messages, "n1"); string(r.Content) != `{"noted":true}` || r.IsError {
		t.Errorf("bookkeeping result in the transcript = %+v", r)
	}
	if got := capsResultEvents(f); !slices.Contains(got, "n1") {
		t.Errorf("ToolResultReceived events for %v, want n1 among them", got)
	}
}

func TestMaxRecoveryTurnsOneTurnPerRejectedToolResult(t *testing.T) {
	// Two recovery turns: the first call plus two retries fail, then one
	// final (uncounted) turn answers.
	p := &capsPlanner{}
	f := newFixtureWith(t, AgentRegistration{Planner: p, Policy: RunPolicy{MaxRecoveryTurns: 2}}, nil, capsTools(t),
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

func TestMaxRecoveryTurnsNoRecoveryTurnsFinalizesAtOnce(t *testing.T) {
	f := newFixture(t, RunPolicy{MaxRecoveryTurns: NoRecoveryTurns}, capsTools(t),
		scripted.Call("flaky", `{}`),
		scripted.Reply("The backend is down."),
	)
	out := f.run("Try the flaky tool.")
	capsCheckRun(t, f, nil, out)
	if out.Reason != planner.ReasonRecoveryExhausted || f.model.Calls() != 2 {
		t.Fatalf("reason %q after %d requests, want recovery_exhausted after 2", out.Reason, f.model.Calls())
	}
}

func TestMaxRecoveryTurnsRejectedModelOutputCounts(t *testing.T) {
	p := &capsPlanner{steps: []func() *planner.PlanResult{
		func() *planner.PlanResult { return &planner.PlanResult{} },
		func() *planner.PlanResult { return &planner.PlanResult{} },
		func() *planner.PlanResult {
			return &planner.PlanResult{FinalResponse: &planner.FinalResponse{Text: "Sorry."}}
		},
	}}
	f := newFixtureWith(t, AgentRegistration{Planner: p, Policy: RunPolicy{MaxRecoveryTurns: 1}}, nil, capsTools(t))
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

func TestMaxRecoveryTurnsRefusedCallsCount(t *testing.T) {
	dx := &capsExec{}
	f := newFixtureWith(t,
		AgentRegistration{Policy: RunPolicy{MaxRecoveryTurns: 1}, Uses: []ToolsetUse{{Toolset: "dx", DeferAll: true}}},
		[]Option{capsToolset("dx", dx, capsSpec(t, "dx", "export"))},
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

func TestMaxRecoveryTurnsResetBySuccessfulBudgetedWork(t *testing.T) {
	t.Run("budgeted success resets", func(t *testing.T) {
		f := newFixture(t, RunPolicy{MaxRecoveryTurns: 1}, capsTools(t),
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
		f := newFixture(t, RunPolicy{MaxRecoveryTurns: 1}, capsTools(t),
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

func TestTerminalRunSuccessEndsRunWithoutPlannerTurn(t *testing.T) {
	f := newFixture(t, RunPolicy{}, capsTools(t),
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
		f := newFixture(t, RunPolicy{}, ts,
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

func TestTerminalRunIsFreeUnderMaxToolCalls(t *testing.T) {
	f := newFixture(t, RunPolicy{MaxToolCalls: 1}, capsTools(t),
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
		f := newFixture(t, RunPolicy{MaxToolCalls: 1}, capsTools(t),
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

func TestTerminalRunAdmittedAfterRecoveryBudgetSpent(t *testing.T) {
	p := &capsPlanner{}
	f := newFixtureWith(t, AgentRegistration{Planner: p, Policy: RunPolicy{MaxRecoveryTurns: NoRecoveryTurns}}, nil, capsTools(t),
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
		f := newFixture(t, RunPolicy{MaxRecoveryTurns: NoRecoveryTurns}, capsTools(t),
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

func TestTerminalRunBookkeepingOnlyTurnMustResolveInSameTurn(t *testing.T) {
	t.Run("bookkeeping calls alone are a rejected output", func(t *testing.T) {
		f := newFixture(t, RunPolicy{MaxRecoveryTurns: 1}, capsTools(t),
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
		f := newFixture(t, RunPolicy{MaxRecoveryTurns: NoRecoveryTurns}, capsTools(t),
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
		f := newFixtureWith(t, AgentRegistration{Planner: p}, nil, capsTools(t))
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
		f := newFixtureWith(t, AgentRegistration{Planner: p}, nil, capsTools(t))
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
		f := newFixtureWith(t, AgentRegistration{Planner: p}, nil, capsTools(t))
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

func TestToolUnavailableForToolsTheAgentMayNotUse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		filter catalog.Filter
	}{
		{"denied tag", catalog.Filter{DenyTags: []string{"admin"}}},
		{"allowed names", catalog.Filter{AllowTools: []tools.Ident{"ws.lookup"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, RunPolicy{Tools: tc.filter},
				[]fixtureTool{{spec: newSpec(t, "lookup")}, {spec: newSpec(t, "wipe", withTags("admin"))}},
				scripted.Calls(call("w1", "wipe")),
				scripted.Reply("I may not wipe."),
			)
			out := f.run("Wipe everything.")
			capsCheckRun(t, f, nil, out)
			reqs := f.model.Requests()
			for _, d := range reqs[0].Tools {
				if d.Name == "wipe" {
					t.Errorf("the filtered tool is advertised")
				}
			}
			if got := f.executed(); len(got) != 0 {
				t.Fatalf("executed %v", got)
			}
			fl := capsDecodeFailure(t, capsResultOf(t, reqs[1].Messages, "w1"))
			if fl.Error != "tool_unavailable" {
				t.Errorf("result = %+v, want tool_unavailable", fl)
			}
			if out.Reason != planner.ReasonFinalResponse {
				t.Errorf("reason %q", out.Reason)
			}
		})
	}
}

func TestInvalidPayloadReturnsTeachingError(t *testing.T) {
	page := newSpec(t, "page", withPayload(t, `{"type":"object","properties":{"limit":{"type":"integer","maximum":100}},"additionalProperties":false}`))
	f := newFixture(t, RunPolicy{}, []fixtureTool{{spec: page, handler: ok(`{"items":[]}`)}},
		scripted.Calls(scripted.ToolCallSpec{ID: "p1", Name: "page", Payload: `{"limit":500}`}),
		scripted.Calls(scripted.ToolCallSpec{ID: "p2", Name: "page", Payload: `{"limit":50}`}),
		scripted.Reply("No items."),
	)
	out := f.run("List a page.")
	capsCheckRun(t, f, nil, out)
	res := capsResultOf(t, f.model.Requests()[1].Messages, "p1")
	fl := capsDecodeFailure(t, res)
	if !strings.Contains(fl.Message, "limit: must be <= 100 (got 500)") {
		t.Errorf("the model reads %q, want the teaching error", fl.Message)
	}
	if fl.Error != "invalid_payload" || fl.Recovery != string(planner.RecoveryCorrectCall) {
		t.Errorf("failure = %+v, want a correctable invalid_payload", fl)
	}
	if got := f.executed(); len(got) != 1 {
		t.Fatalf("executed %d times, want once (the invalid call must not reach the executor)", len(got))
	}
	if out.Reason != planner.ReasonFinalResponse {
		t.Errorf("reason %q", out.Reason)
	}
}
