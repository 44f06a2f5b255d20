package compat

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// TestRuntimeRefusesAnUndiscoveredCallWithThePortableRecovery runs an agent
// end to end on the compat client: the model calls a deferred tool it never
// searched for; the adapter hands the call over as an ordinary call; runtime
// admission refuses it, runs nothing, and the model reads the recovery
// message naming search_tools and the inline tools on its next request.
func TestRuntimeRefusesAnUndiscoveredCallWithThePortableRecovery(t *testing.T) {
	p := newProvider(t,
		callsTool("call_b1", "startExport", `{"table":"orders"}`),
		replies("I need to search for the export tool first."),
	)
	rt, executed := dynotable(t, p.client())
	out, err := rt.Run(ctx(t), "dynotable", runtime.RunInput{Messages: []model.Message{model.UserMessage("Export orders to CSV")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusCompleted || out.Final == nil || out.Final.Text != "I need to search for the export tool first." {
		t.Fatalf("out = %+v", out)
	}
	if got := executed(); len(got) != 0 {
		t.Fatalf("executed %v; the refused call must not run", got)
	}

	reqs := p.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want the call and the recovery turn", len(reqs))
	}
	for i, r := range reqs {
		if got := wireToolNames(t, r.Body); len(got) != 3 || got[0] != "listTables" || got[1] != "runQuery" || got[2] != "search_tools" {
			t.Fatalf("request %d advertises %v, want the inline tools and search_tools only", i+1, got)
		}
	}
	msgs := wireMessages(t, reqs[1].Body)
	last := msgs[len(msgs)-1]
	if last["role"] != "tool" || last["tool_call_id"] != "call_b1" {
		t.Fatalf("last message of the recovery request = %v", last)
	}
	var refusal struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(last["content"].(string)), &refusal); err != nil {
		t.Fatalf("refusal content %q: %v", last["content"], err)
	}
	const want = "Tool 'startExport' not in active set. Call search_tools(query='startExport') to discover it, or use one of: listTables, runQuery"
	if refusal.Message != want || refusal.Error != "not_in_active_set" {
		t.Fatalf("the model read %+v, want message %q", refusal, want)
	}
}

// TestRuntimeRunsADeferredToolAfterAPortableSearch is the same agent on the
// happy path: the discovery the adapter records in message metadata is
// re-applied by the runtime's catalog, so the call is admitted and runs.
func TestRuntimeRunsADeferredToolAfterAPortableSearch(t *testing.T) {
	p := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"startExport"}`),
		callsTool("call_b1", "startExport", `{"table":"orders"}`),
		replies("Export started."),
	)
	rt, executed := dynotable(t, p.client())
	out, err := rt.Run(ctx(t), "dynotable", runtime.RunInput{Messages: []model.Message{model.UserMessage("Export orders to CSV")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Final == nil || out.Final.Text != "Export started." {
		t.Fatalf("out = %+v", out)
	}
	if got := executed(); len(got) != 1 || got[0] != "ws.startExport" {
		t.Fatalf("executed %v", got)
	}
	// Request 3 (the planner's next step) still advertises the tool: the
	// discovery lives in the transcript, not in the client.
	if got := wireToolNames(t, p.Request(2).Body); len(got) != 4 || got[2] != "startExport" {
		t.Fatalf("request 3 advertises %v", got)
	}
}

// TestRuntimeRefusesNativeSearchAtRegistration: an agent that defers tools
// on native search cannot run on an OpenAI-compatible server; RegisterAgent
// says so, naming the portable opt-in, before any HTTP request.
func TestRuntimeRefusesNativeSearchAtRegistration(t *testing.T) {
	p := newProvider(t)
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, p.client()))
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "ws", Specs: []tools.ToolSpec{spec(t, "listTables", listTablesSchema), spec(t, "startExport", startExportSchema)}, Executor: runtime.ToolExecutorFunc(nil)}); err != nil {
		t.Fatal(err)
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{Name: "native", Planner: planner.NewStandard(), Uses: []runtime.ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}}})
	if !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("err = %v, want ErrToolSearchUnsupported", err)
	}
	for _, want := range []string{"ws.startExport", "model.SearchPortable", "or defer none"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d HTTP requests, want none", n)
	}
}

// dynotable registers toolset ws (listTables, runQuery, startExport) and an
// agent that defers startExport and opted into portable search, on a
// runtime whose default model is c. executed lists the calls that ran.
func dynotable(t *testing.T, c model.Client) (rt *runtime.Runtime, executed func() []tools.Ident) {
	t.Helper()
	var mu sync.Mutex
	var calls []tools.Ident
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, c))
	if err != nil {
		t.Fatal(err)
	}
	err = rt.RegisterToolset(runtime.ToolsetRegistration{
		Name:  "ws",
		Specs: []tools.ToolSpec{spec(t, "listTables", listTablesSchema), spec(t, "runQuery", runQuerySchema), spec(t, "startExport", startExportSchema)},
		Executor: runtime.ToolExecutorFunc(func(_ context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, call.Ident)
			return &planner.ToolResult{Result: json.RawMessage(`{"ok":true}`)}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name:         "dynotable",
		SystemPrompt: "You are DynoTable's assistant.",
		Planner:      planner.NewStandard(),
		Uses:         []runtime.ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}},
		Search:       model.SearchSettings{Mode: model.SearchPortable},
	})
	if err != nil {
		t.Fatal(err)
	}
	return rt, func() []tools.Ident {
		mu.Lock()
		defer mu.Unlock()
		return append([]tools.Ident(nil), calls...)
	}
}

// spec builds the tool ws.<name> with a payload schema and its search
// document, as generated code would.
func spec(t *testing.T, name, schema string) tools.ToolSpec {
	t.Helper()
	id, err := tools.NewIdent("ws", name)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := tools.NewTypeSpec("", json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	s := tools.ToolSpec{Name: id, Title: name, Description: "The " + name + " tool.", Payload: payload}
	s.Search = search.NewDocument(s.SearchSource())
	return s
}
