package runtimetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

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

func testMaxToolCallsBookkeepingCallsCostNothing(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{MaxToolCalls: 1}, capsTools(t),
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

func testMaxToolCallsBatchAdmittedWholeOrRejectedWhole(t *testing.T, newEngine NewEngine) {
	p := &capsPlanner{}
	// No terminal tool: a finalizing turn advertises nothing.
	noTerminal := slices.DeleteFunc(capsTools(t), func(ft fixtureTool) bool { return ft.spec.TerminalRun })
	f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p, Policy: runtime.RunPolicy{MaxToolCalls: 2}}, nil, noTerminal,
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
	if out.Reason != planner.ReasonToolCap || out.Status != runtime.StatusCompleted {
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
	if ev := eventsOf[runtime.RunCompleted](f); len(ev) != 1 || ev[0].Reason != planner.ReasonToolCap {
		t.Errorf("RunCompleted events = %+v", ev)
	}
}

func testMaxToolCallsRefusedCallsDoNotCount(t *testing.T, newEngine NewEngine) {
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
			f := newFixtureWith(t, newEngine,
				runtime.AgentRegistration{Policy: runtime.RunPolicy{MaxToolCalls: 1}, Search: tc.search, Uses: []runtime.ToolsetUse{{Toolset: "dx", DeferAll: true}, {Toolset: "aa"}}},
				[]runtime.Option{capsToolset("dx", dx, capsSpec(t, "dx", "export")), capsToolset("aa", dx, capsSpec(t, "aa", "zeta"))},
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

func testMaxToolCallsRefusedBeforeCapCheck(t *testing.T, newEngine NewEngine) {
	dx := &capsExec{}
	f := newFixtureWith(t, newEngine,
		runtime.AgentRegistration{Policy: runtime.RunPolicy{MaxToolCalls: 1}, Uses: []runtime.ToolsetUse{{Toolset: "dx", DeferAll: true}}},
		[]runtime.Option{capsToolset("dx", dx, capsSpec(t, "dx", "export"))},
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

func testMaxToolCallsUnknownToolsCountAsBudgeted(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{MaxToolCalls: 1}, capsTools(t),
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

func testMaxToolCallsSuccessfulBookkeepingLeftOutOfToolOutputs(t *testing.T, newEngine NewEngine) {
	p := &capsPlanner{}
	ts := append(capsTools(t), fixtureTool{spec: newSpec(t, "badnote", bookkeeping()), handler: capsFails()})
	f := newFixtureWith(t, newEngine, runtime.AgentRegistration{Planner: p}, nil, ts,
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

func testToolUnavailableForToolsTheAgentMayNotUse(t *testing.T, newEngine NewEngine) {
	for _, tc := range []struct {
		name   string
		filter catalog.Filter
	}{
		{"denied tag", catalog.Filter{DenyTags: []string{"admin"}}},
		{"allowed names", catalog.Filter{AllowTools: []tools.Ident{"ws.lookup"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, newEngine, runtime.RunPolicy{Tools: tc.filter},
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

func testInvalidPayloadReturnsTeachingError(t *testing.T, newEngine NewEngine) {
	page := newSpec(t, "page", withPayload(t, `{"type":"object","properties":{"limit":{"type":"integer","maximum":100}},"additionalProperties":false}`))
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: page, handler: ok(`{"items":[]}`)}},
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
