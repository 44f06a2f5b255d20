package runtimetest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// callToolSearch is portable search in call-tool mode.
var callToolSearch = model.SearchSettings{Mode: model.SearchPortable, CallTool: true}

// countingTools records, per tool, the payloads its executor ran with.
type countingTools struct {
	mu  sync.Mutex
	ran map[tools.Ident][]string
}

func (c *countingTools) handler() handler {
	return func(_ context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.ran[call.Ident] = append(c.ran[call.Ident], string(call.Payload))
		return &planner.ToolResult{Result: json.RawMessage(`{"ok":true}`)}, nil
	}
}

func (c *countingTools) payloads(id tools.Ident) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran[id]
}

// callToolFixture is an agent ("calltool") deferring startExport,
// indexStats and purgeCache, on portable search in call-tool mode over
// the scripted model inner.
func callToolFixture(t *testing.T, newEngine NewEngine, steps ...scripted.Step) (*fixture, *scripted.Client, *countingTools) {
	t.Helper()
	inner := scripted.New(steps...)
	counts := &countingTools{ran: map[tools.Ident][]string{}}
	f := newFixtureWith(t, newEngine,
		runtime.AgentRegistration{Search: callToolSearch},
		[]runtime.Option{runtime.WithModel(model.ModelClassDefault, portable.Wrap(inner))},
		[]fixtureTool{
			{spec: newSpec(t, "openTable"), handler: counts.handler()},
			{spec: newSpec(t, "applyFilter"), handler: counts.handler()},
			{spec: newSpec(t, "startExport", func(s *tools.ToolSpec) { s.Description = "Export a table to a CSV file." }), handler: counts.handler()},
			{spec: newSpec(t, "indexStats", func(s *tools.ToolSpec) { s.Description = "Show index statistics." }), handler: counts.handler()},
			{spec: newSpec(t, "purgeCache", func(s *tools.ToolSpec) { s.Description = "Purge the query cache." }), handler: counts.handler()},
		},
	)
	err := f.rt.RegisterAgent(runtime.AgentRegistration{
		Name:    "calltool",
		Planner: planner.NewStandard(),
		Uses:    []runtime.ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport", "indexStats", "purgeCache"}}},
		Search:  callToolSearch,
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, inner, counts
}

// testCallToolModeKeepsEveryRequestsToolsArrayIdentical is the call-tool
// mode's guarantee: a run with two discoveries, in two planning steps,
// sends every model request the same tools array, byte for byte, and the
// found tools run through call_tool with the arguments the model gave.
func testCallToolModeKeepsEveryRequestsToolsArrayIdentical(t *testing.T, newEngine NewEngine) {
	f, inner, counts := callToolFixture(t, newEngine,
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Call("call_tool", `{"name":"startExport","arguments":{"q":"orders"}}`),
		scripted.Call("search_tools", `{"query":"index statistics"}`),
		scripted.Call("call_tool", `{"name":"indexStats","arguments":{"q":"customers"}}`),
		scripted.Reply("Exported, and here are the stats."),
	)
	out := f.runAgent("calltool", "Export orders, then show the index stats of customers")
	if out.Reason != planner.ReasonFinalResponse {
		t.Fatalf("out = %+v", out)
	}
	reqs := inner.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	var want []byte
	for i, r := range reqs {
		got, err := json.Marshal(r.Tools)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			want = got
			continue
		}
		if string(got) != string(want) {
			t.Fatalf("request %d tools differ from the first request's:\n got %s\nwant %s", i+1, got, want)
		}
	}
	var names []string
	for _, d := range reqs[0].Tools {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "applyFilter,openTable,search_tools,call_tool" {
		t.Fatalf("tools = %v, want the inline tools (in the catalog's order), the search tool and call_tool", names)
	}
	if got := counts.payloads("ws.startExport"); len(got) != 1 || got[0] != `{"q":"orders"}` {
		t.Fatalf("startExport ran with %v, want once with the call_tool arguments", got)
	}
	if got := counts.payloads("ws.indexStats"); len(got) != 1 || got[0] != `{"q":"customers"}` {
		t.Fatalf("indexStats ran with %v, want once with the call_tool arguments", got)
	}
	if got := counts.payloads("ws.purgeCache"); len(got) != 0 {
		t.Fatalf("purgeCache ran: %v", got)
	}
	if out.ToolCalls != 2 {
		t.Fatalf("%d budgeted calls, want the two found tools", out.ToolCalls)
	}
	// The model read its calls as it made them (the runtime records the
	// canonical payload inside the call_tool envelope) and each found
	// tool's result answering its call_tool call, by call id and by name.
	calls := map[string]string{}
	var made []string
	for _, m := range reqs[4].Messages {
		for _, c := range m.ToolCalls() {
			calls[c.ID] = c.Name
			if c.Name == "call_tool" {
				made = append(made, string(c.Payload))
			}
		}
	}
	if want := []string{`{"name":"startExport","arguments":{"q":"orders"}}`, `{"name":"indexStats","arguments":{"q":"customers"}}`}; !slices.Equal(made, want) {
		t.Fatalf("the history replays the call_tool calls as %v, want %v", made, want)
	}
	var ran int
	for _, r := range toolResults(reqs[4].Messages) {
		if string(r.Content) == `{"ok":true}` {
			ran++
			if calls[r.CallID] != "call_tool" || r.Name != "call_tool" {
				t.Fatalf("result %+v answers call %q", r, calls[r.CallID])
			}
		}
	}
	if ran != 2 {
		t.Fatalf("the last request holds %d tool results, want 2", ran)
	}
}

func testCallToolOfAnUndiscoveredToolIsRefusedWithTheRecoveryCall(t *testing.T, newEngine NewEngine) {
	f, inner, counts := callToolFixture(t, newEngine,
		scripted.Call("call_tool", `{"name":"startExport","arguments":{"q":"orders"}}`),
		scripted.Call("call_tool", `{"name":"noSuchTool","arguments":{}}`),
		scripted.Reply("I need to search first."),
	)
	out := f.runAgent("calltool", "Export orders")
	if got := counts.payloads("ws.startExport"); len(got) != 0 {
		t.Fatalf("an undiscovered tool ran: %v", got)
	}
	if out.ToolCalls != 1 {
		// An unknown tool's call counts, as any call answered
		// tool_unavailable does; the refused undiscovered one does not.
		t.Fatalf("%d budgeted calls, want 1 (the unknown tool's)", out.ToolCalls)
	}
	res := toolResults(inner.Requests()[1].Messages)
	want := "Tool 'startExport' not in active set. Call search_tools(query='startExport') to discover it"
	if len(res) != 1 || !strings.Contains(string(res[0].Content), want) || !strings.Contains(string(res[0].Content), "not_in_active_set") {
		t.Fatalf("the model read %v\nwant it to contain %q", res, want)
	}
	res = toolResults(inner.Requests()[2].Messages)
	if len(res) != 2 || !strings.Contains(string(res[1].Content), "tool_unavailable") {
		t.Fatalf("the unknown tool was answered %v, want tool_unavailable", res)
	}
}

func testAToolNamedCallToolIsRefusedInCallToolMode(t *testing.T, newEngine NewEngine) {
	for _, callTool := range []bool{true, false} {
		rt, err := runtime.New(runtime.WithEngine(newEngine(t)), runtime.WithModel(model.ModelClassDefault, portable.Wrap(scripted.New())))
		if err != nil {
			t.Fatal(err)
		}
		specs := []tools.ToolSpec{newSpec(t, "call_tool"), newSpec(t, "other")}
		if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "ws", Specs: specs, Executor: noopExecutor()}); err != nil {
			t.Fatal(err)
		}
		search := model.SearchSettings{Mode: model.SearchPortable, CallTool: callTool}
		err = rt.RegisterAgent(runtime.AgentRegistration{Name: "a", Planner: planner.NewStandard(), Uses: []runtime.ToolsetUse{{Toolset: "ws", Deferred: []string{"other"}}}, Search: search})
		switch {
		case callTool && (err == nil || !strings.Contains(err.Error(), "ws.call_tool") || !strings.Contains(err.Error(), "rename the tool or turn Search.CallTool off")):
			t.Fatalf("err = %v, want the clash with call_tool named, with the fix", err)
		case !callTool && err != nil:
			t.Fatalf("outside call-tool mode a tool may be called call_tool: %v", err)
		}
	}
}
