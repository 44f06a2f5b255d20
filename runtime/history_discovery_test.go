package runtime

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/history"
	"github.com/quiver-go/quiver/tools"
)

// histDiscoveryAgent registers, beside discoveryFixture's agents, an agent
// deferring startExport and indexStats to portable search under history
// policy p.
func histDiscoveryAgent(t *testing.T, f *fixture, name string, p *history.Policy, historyModel model.Client) {
	t.Helper()
	err := f.rt.RegisterAgent(AgentRegistration{
		Name:         name,
		Planner:      planner.NewStandard(),
		Uses:         []ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport", "indexStats"}}},
		Search:       model.SearchSettings{Mode: model.SearchPortable},
		HistoryModel: historyModel,
		Policy:       RunPolicy{History: p},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// histDiscoveryRun runs agent on text in session and expects it to finish.
func histDiscoveryRun(t *testing.T, f *fixture, agent, session, text string) *RunOutput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := f.rt.Run(ctx, agent, RunInput{SessionID: session, Messages: []model.Message{model.UserMessage(text)}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusCompleted || out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("run %q = %+v", text, out)
	}
	return out
}

// histDiscoveryCallable reports whether req advertised name as a callable
// (loaded, not deferred) function.
func histDiscoveryCallable(req model.Request, name string) bool {
	return slices.ContainsFunc(req.Tools, func(d model.ToolDefinition) bool { return d.Name == name && !d.Deferred })
}

// histDiscoveryCheck asserts what the discovery-after-history scenarios
// share: both exports ran, nothing was refused as undiscovered, and the
// request of the step that called startExport again (index call) offered
// it as callable, with no search spent in that turn.
func histDiscoveryCheck(t *testing.T, f *fixture, inner *scripted.Client, call int) {
	t.Helper()
	if got := f.executed(); !slices.Equal(got, []tools.Ident{"ws.startExport", "ws.startExport"}) {
		t.Fatalf("executed %v, want startExport before and after the history policy", got)
	}
	for _, e := range eventsOf[ToolResultReceived](f) {
		if e.Failure != nil {
			t.Errorf("call %s to %s failed: %s: %s", e.CallID, e.Tool, e.Failure.Code, e.Failure.Message)
		}
	}
	reqs := inner.Requests()
	if len(reqs) <= call {
		t.Fatalf("the model got %d requests", len(reqs))
	}
	req := reqs[call]
	if !histDiscoveryCallable(req, "startExport") {
		t.Errorf("the request of the step calling startExport again advertised %v: want startExport callable", toolNames(req.Tools))
	}
	if histDiscoveryCallable(req, "indexStats") {
		t.Error("indexStats, never discovered, was advertised as callable")
	}
	if n := model.SearchesThisTurn(req.Messages); n != 0 {
		t.Errorf("the turn after the history policy has %d searches counted, want 0", n)
	}
	if ts := model.TurnStart(req.Messages); history.IsSummary(req.Messages[ts]) || req.Messages[ts].TextContent() != "Export invoices too" {
		t.Errorf("the turn starts at %q, want the user's last message", req.Messages[ts].TextContent())
	}
}

func toolNames(defs []model.ToolDefinition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

// histDiscoveryScenario plays the scenario both history policies share, in
// session "s" of an agent registered under p: run 1 discovers startExport
// and calls it, run 2 uses no tool, run 3 — after the policy dropped or
// summarized run 1 — calls startExport again with no search.
func histDiscoveryScenario(t *testing.T, agent string, p *history.Policy, historyModel model.Client) (*fixture, *scripted.Client) {
	t.Helper()
	f, inner := discoveryFixture(t,
		// Run 1: search, then call what was found.
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Call("startExport", `{"q":"orders"}`),
		scripted.Reply("Export started."),
		// Run 2: no tools.
		scripted.Reply("The table is open."),
		// Run 3, after the policy: the discovered tool, with no search.
		scripted.Call("startExport", `{"q":"invoices"}`),
		scripted.Reply("Second export started."),
	)
	histDiscoveryAgent(t, f, agent, p, historyModel)
	histDiscoveryRun(t, f, agent, "s", "Export orders to CSV")
	histDiscoveryRun(t, f, agent, "s", "Open the orders table")
	histDiscoveryRun(t, f, agent, "s", "Export invoices too")
	return f, inner
}

func TestDiscoveredToolSurvivesCompression(t *testing.T) {
	hm := scripted.New(scripted.Reply("The user exported orders to CSV and opened the table."))
	f, inner := histDiscoveryScenario(t, "compressing", &history.Policy{Compression: &history.Compression{CompressAtTurns: 3, KeepMaxTurns: 1}}, hm)
	if hm.Calls() != 1 {
		t.Fatalf("the history model got %d requests, want 1", hm.Calls())
	}
	// Requests: run 1 has three (search, call, answer), run 2 one; run 3's
	// first request is the one that calls startExport.
	histDiscoveryCheck(t, f, inner, 4)

	// The stored transcript starts with the summary, which carries the
	// discovery and nothing that counts against a turn's budget.
	stored := histSession(t, f, "s")
	if len(stored) == 0 || !history.IsSummary(stored[0]) {
		t.Fatalf("stored session = %q", histTexts(stored))
	}
	d, ok := stored[0].Discovery()
	if !ok || !slices.Equal(d.Tools, []tools.Ident{"ws.startExport"}) || d.Searches != 0 || d.Exhausted {
		t.Errorf("summary discovery record = %+v (%v), want Tools [ws.startExport] only", d, ok)
	}
}

func TestDiscoveredToolSurvivesSlidingWindow(t *testing.T) {
	f, inner := histDiscoveryScenario(t, "windowed", &history.Policy{KeepRecentTurns: 1}, nil)
	histDiscoveryCheck(t, f, inner, 4)
	// The window dropped the turn of the search: the request holds the
	// current turn only, its first message carrying the record.
	req := inner.Requests()[4]
	if got := histTexts(req.Messages); len(got) != 1 || got[0] != "Export invoices too" {
		t.Errorf("run 3 request = %q, want the current turn only", got)
	}
	if d, ok := req.Messages[0].Discovery(); !ok || !slices.Equal(d.Tools, []tools.Ident{"ws.startExport"}) || d.Searches != 0 || d.Exhausted {
		t.Errorf("first kept message's record = %+v (%v)", d, ok)
	}
	// The window trims requests only: the stored user message has no record.
	for _, m := range histSession(t, f, "s") {
		if _, ok := m.Discovery(); ok && m.Role == model.RoleUser {
			t.Errorf("the stored user message %q got a discovery record", m.TextContent())
		}
	}
}
