package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// discoveryFixture is an agent deferring startExport and indexStats, with
// portable search over a scripted model.
func discoveryFixture(t *testing.T, steps ...scripted.Step) (*fixture, *scripted.Client) {
	t.Helper()
	inner := scripted.New(steps...)
	f := newFixtureWith(t,
		AgentRegistration{Search: model.SearchSettings{Mode: model.SearchPortable}},
		[]Option{WithModel(model.ModelClassDefault, portable.Wrap(inner))},
		[]fixtureTool{
			{spec: newSpec(t, "openTable")},
			{spec: newSpec(t, "applyFilter")},
			{spec: newSpec(t, "startExport", func(s *tools.ToolSpec) { s.Description = "Export a table to a CSV file." })},
			{spec: newSpec(t, "indexStats", func(s *tools.ToolSpec) { s.Description = "Show index statistics." })},
		},
	)
	// Re-register the agent's deferral: the fixture registered "assistant"
	// with every tool inline, so register a deferring one beside it.
	err := f.rt.RegisterAgent(AgentRegistration{
		Name:    "deferring",
		Planner: planner.NewStandard(),
		Uses:    []ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport", "indexStats"}}},
		Search:  model.SearchSettings{Mode: model.SearchPortable},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, inner
}

func (f *fixture) runAgent(agent, text string, opts ...RunOption) *RunOutput {
	f.t.Helper()
	out, err := f.rt.Run(context.Background(), agent, RunInput{Messages: []model.Message{model.UserMessage(text)}}, opts...)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func TestDiscoveredInTheSameStepIsAdmitted(t *testing.T) {
	f, _ := discoveryFixture(t,
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Call("startExport", `{"q":"orders"}`),
		scripted.Reply("Export started."),
	)
	out := f.runAgent("deferring", "Export orders to CSV")
	if out.Reason != planner.ReasonFinalResponse || !slices.Equal(f.executed(), []tools.Ident{"ws.startExport"}) {
		t.Fatalf("out = %+v, executed %v", out, f.executed())
	}
}

func TestUndiscoveredCallIsRefusedWithTheRecoveryCall(t *testing.T) {
	f, inner := discoveryFixture(t,
		scripted.Call("startExport", `{"q":"orders"}`),
		scripted.Reply("I need to search first."),
	)
	out := f.runAgent("deferring", "Export orders")
	if len(f.executed()) != 0 {
		t.Fatalf("an undiscovered tool ran: %v", f.executed())
	}
	if out.ToolCalls != 0 {
		t.Fatalf("the refused call counted: %d budgeted calls", out.ToolCalls)
	}
	res := toolResults(inner.Requests()[1].Messages)
	want := "Tool 'startExport' not in active set. Call search_tools(query='startExport') to discover it, or use one of: applyFilter, openTable"
	if len(res) != 1 || !strings.Contains(string(res[0].Content), want) {
		t.Fatalf("the model read %s\nwant it to contain %q", res[0].Content, want)
	}
}

func TestDiscoveriesLastWhileTheirRecordStaysInTheTranscript(t *testing.T) {
	f, inner := discoveryFixture(t,
		scripted.Call("search_tools", `{"query":"index statistics"}`),
		scripted.Reply("Found it."),
		// Next turn, same session: the tool is callable without a search.
		scripted.Call("indexStats", `{"q":"orders"}`),
		scripted.Reply("Stats shown."),
	)
	for _, text := range []string{"Which tool shows index stats?", "Show them for orders"} {
		if _, err := f.rt.Run(context.Background(), "deferring", RunInput{SessionID: "s1", Messages: []model.Message{model.UserMessage(text)}}); err != nil {
			t.Fatal(err)
		}
	}
	// The second turn's first request already advertises the tool.
	if got := inner.Requests()[2].Tools; !slices.ContainsFunc(got, func(d model.ToolDefinition) bool { return d.Name == "indexStats" }) {
		t.Fatalf("second turn tools = %v", got)
	}
	if !slices.Equal(f.executed(), []tools.Ident{"ws.indexStats"}) {
		t.Fatalf("executed %v, want the tool discovered last turn to run", f.executed())
	}
}

func TestConcurrentRunsNeverSeeEachOthersCatalog(t *testing.T) {
	// Two sessions run at once: only the one that searched may call the
	// deferred tool.
	var mu sync.Mutex
	rt, err := New(WithModel(model.ModelClassDefault, portable.Wrap(sessionModel{})))
	if err != nil {
		t.Fatal(err)
	}
	specs := []tools.ToolSpec{newSpec(t, "openTable"), newSpec(t, "startExport", func(s *tools.ToolSpec) { s.Description = "Export a table to CSV." })}
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "ws", Specs: specs, Executor: noopExecutor()}); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterAgent(AgentRegistration{Name: "a", Planner: planner.NewStandard(), Uses: []ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}}, Search: model.SearchSettings{Mode: model.SearchPortable}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	outs := map[string]*RunOutput{}
	for _, session := range []string{"searcher", "guesser"} {
		wg.Go(func() {
			out, err := rt.Run(context.Background(), "a", RunInput{SessionID: session, Messages: []model.Message{model.UserMessage(session)}})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			outs[session] = out
			mu.Unlock()
		})
	}
	wg.Wait()
	if outs["searcher"] == nil || outs["guesser"] == nil {
		t.FailNow()
	}
	if outs["searcher"].ToolCalls != 1 {
		t.Errorf("the searching session ran %d calls, want its discovered tool to run", outs["searcher"].ToolCalls)
	}
	if outs["guesser"].ToolCalls != 0 {
		t.Errorf("the other session ran %d calls: it saw a discovery that was not its own", outs["guesser"].ToolCalls)
	}
}

// sessionModel plays one script per session, told apart by the session's
// first user message: "searcher" searches, then calls the tool it found;
// "guesser" calls the same tool without searching. Each answers once a tool
// result came back.
type sessionModel struct{}

func (sessionModel) Complete(_ context.Context, req *model.Request) (*model.Response, error) {
	who := req.Messages[0].TextContent()
	last := req.Messages[len(req.Messages)-1]
	var call *model.ToolCall
	switch {
	case last.Role == model.RoleTool && last.Parts[0].ToolResult.Name == "search_tools":
		call = &model.ToolCall{ID: who + "-2", Name: "startExport", Payload: []byte(`{"q":"x"}`)}
	case last.Role == model.RoleTool:
		return &model.Response{Messages: []model.Message{model.AssistantMessage("done")}, StopReason: model.StopEndTurn}, nil
	case who == "searcher":
		call = &model.ToolCall{ID: who + "-1", Name: "search_tools", Payload: []byte(`{"query":"export csv"}`)}
	default:
		call = &model.ToolCall{ID: who + "-1", Name: "startExport", Payload: []byte(`{"q":"x"}`)}
	}
	msg := model.Message{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: call}}}
	return &model.Response{Messages: []model.Message{msg}, ToolCalls: []model.ToolCall{*call}, StopReason: model.StopToolUse}, nil
}

// Stream completes the request, then delivers it as chunks.
func (m sessionModel) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := m.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}

// instructedModel is a scripted model whose provider search is not a
// tool_search call.
type instructedModel struct{ *scripted.Client }

func (instructedModel) SearchInstruction(model.SearchSettings) string {
	return "Search for '%s' with the tool search tool"
}

func TestRefusalUsesTheClientsSearchInstruction(t *testing.T) {
	inner := scripted.New(scripted.Call("startExport", `{"q":"x"}`), scripted.Reply("ok")).WithNativeSearch()
	f := newFixtureWith(t, AgentRegistration{}, []Option{WithModel(model.ModelClassDefault, instructedModel{inner})},
		[]fixtureTool{{spec: newSpec(t, "openTable")}, {spec: newSpec(t, "startExport")}})
	if err := f.rt.RegisterAgent(AgentRegistration{Name: "hosted", Planner: planner.NewStandard(), Uses: []ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}}}); err != nil {
		t.Fatal(err)
	}
	f.runAgent("hosted", "export")
	res := toolResults(inner.Requests()[1].Messages)
	want := "Tool 'startExport' not in active set. Search for 'startExport' with the tool search tool, or use one of: openTable"
	if len(res) != 1 || !strings.Contains(string(res[0].Content), want) {
		t.Fatalf("the model read %s\nwant %q", res[0].Content, want)
	}
}

// TestRefusalWithoutInlineToolsEndsWithTheSearch: an agent that defers
// every tool has nothing to offer instead of the search, so the refusal of
// an undiscovered call ends with the search, not with "or use one of: "
// and an empty list; in both search modes.
func TestRefusalWithoutInlineToolsEndsWithTheSearch(t *testing.T) {
	for _, tc := range []struct {
		search model.SearchSettings
		want   string
	}{
		{model.SearchSettings{}, "Tool 'startExport' not in active set. Call tool_search(query='startExport') to discover it."},
		{model.SearchSettings{Mode: model.SearchPortable}, "Tool 'startExport' not in active set. Call search_tools(query='startExport') to discover it."},
	} {
		f := newFixtureWith(t, AgentRegistration{Search: tc.search}, nil,
			[]fixtureTool{{spec: newSpec(t, "openTable")}, {spec: newSpec(t, "startExport")}},
			scripted.Call("startExport", `{"q":"x"}`), scripted.Reply("ok"))
		reg := AgentRegistration{Name: "all_deferred", Planner: planner.NewStandard(), Search: tc.search, Uses: []ToolsetUse{{Toolset: "ws", Deferred: []string{"openTable", "startExport"}}}}
		if err := f.rt.RegisterAgent(reg); err != nil {
			t.Fatal(err)
		}
		f.runAgent("all_deferred", "export")
		res := toolResults(f.model.Requests()[1].Messages)
		if len(res) != 1 {
			t.Fatalf("mode %q: %d tool results, want 1", tc.search.Mode, len(res))
		}
		var read struct{ Message string }
		if err := json.Unmarshal(res[0].Content, &read); err != nil || read.Message != tc.want {
			t.Fatalf("mode %q: the model read %s (%v)\nwant the message %q", tc.search.Mode, res[0].Content, err, tc.want)
		}
	}
}

// TestRefusalNamesTheSearchThroughThePortableWrapper: wrapped in portable
// search, a native client's instruction still names its own search on an
// agent that searches natively, and the portable tool on one that searches
// portably.
func TestRefusalNamesTheSearchThroughThePortableWrapper(t *testing.T) {
	for _, tc := range []struct {
		search model.SearchSettings
		want   string
	}{
		{model.SearchSettings{}, "Search for 'startExport' with the tool search tool"},
		{model.SearchSettings{Mode: model.SearchPortable}, "Call search_tools(query='startExport') to discover it"},
	} {
		inner := scripted.New(scripted.Call("startExport", `{"q":"x"}`), scripted.Reply("ok")).WithNativeSearch()
		f := newFixtureWith(t, AgentRegistration{}, []Option{WithModel(model.ModelClassDefault, portable.Wrap(instructedModel{inner}))},
			[]fixtureTool{{spec: newSpec(t, "openTable")}, {spec: newSpec(t, "startExport")}})
		if err := f.rt.RegisterAgent(AgentRegistration{Name: "wrapped", Planner: planner.NewStandard(), Search: tc.search, Uses: []ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}}}); err != nil {
			t.Fatal(err)
		}
		f.runAgent("wrapped", "export")
		res := toolResults(inner.Requests()[1].Messages)
		if len(res) != 1 || !strings.Contains(string(res[0].Content), tc.want) {
			t.Fatalf("mode %q: the model read %s\nwant %q", tc.search.Mode, res[0].Content, tc.want)
		}
	}
}

// TestRequestsCarryTheCatalogsDiscoveryState: the runtime keeps the
// discovery state from step to step and sends it with every request, so
// adapters never re-derive it from the transcript.
func TestRequestsCarryTheCatalogsDiscoveryState(t *testing.T) {
	found := func(*model.Request) (*model.Response, error) {
		// A native search in the adapter: it discovered startExport and
		// the model calls it in the same response.
		call := model.ToolCall{ID: "c1", Name: "startExport", Payload: []byte(`{"q":"x"}`)}
		msg := model.Message{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &call}}}
		msg.SetDiscovery(model.Discovery{Tools: []tools.Ident{"ws.startExport"}, Searches: 1})
		return &model.Response{Messages: []model.Message{msg}, ToolCalls: []model.ToolCall{call}, StopReason: model.StopToolUse}, nil
	}
	inner := scripted.New(scripted.Func(found), scripted.Reply("done"), scripted.Reply("hi")).WithNativeSearch()
	f := newFixtureWith(t, AgentRegistration{}, []Option{WithModel(model.ModelClassDefault, inner)},
		[]fixtureTool{{spec: newSpec(t, "openTable")}, {spec: newSpec(t, "startExport")}})
	if err := f.rt.RegisterAgent(AgentRegistration{Name: "native", Planner: planner.NewStandard(), Uses: []ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}}}); err != nil {
		t.Fatal(err)
	}
	out := f.runAgent("native", "export")
	if got := f.executed(); len(got) != 1 {
		t.Fatalf("executed %v: the tool discovered in the same step was not admitted", got)
	}
	reqs := inner.Requests()
	if d := reqs[0].Discovery; d == nil || len(d.Tools) != 0 || d.Searches != 0 {
		t.Fatalf("first request's discovery %+v", d)
	}
	if d := reqs[1].Discovery; d == nil || fmt.Sprint(d.Tools) != "[ws.startExport]" || d.Searches != 1 {
		t.Fatalf("second request's discovery %+v", d)
	}
	// The next run of the session is a new turn: the tool stays
	// discovered, the budget is fresh.
	if _, err := f.rt.Run(context.Background(), "native", RunInput{SessionID: out.SessionID, Messages: []model.Message{model.UserMessage("again")}}); err != nil {
		t.Fatal(err)
	}
	if d := inner.Requests()[2].Discovery; d == nil || fmt.Sprint(d.Tools) != "[ws.startExport]" || d.Searches != 0 {
		t.Fatalf("next turn's discovery %+v", d)
	}
}
