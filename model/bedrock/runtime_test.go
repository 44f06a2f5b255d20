package bedrock

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
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

const (
	listTablesSchema  = `{"type":"object","properties":{}}`
	startExportSchema = `{"type":"object","properties":{"table":{"type":"string"},"format":{"type":"string","enum":["csv","parquet"]}},"required":["table"]}`
)

// TestRuntimeRunsInlineToolsOverTwoTurns runs an agent end to end on a
// Converse model: the model calls an inline tool, the runtime runs it and
// sends the result back, the model answers. Both requests are SigV4-signed
// Converse calls carrying the tools as toolSpec, and the second carries
// the toolUse and its toolResult.
func TestRuntimeRunsInlineToolsOverTwoTurns(t *testing.T) {
	f := newFake(t,
		ok(toolUse("tu_1", "startExport", `{"table":"orders","format":"csv"}`)),
		ok(reply("Export started.")),
	)
	rt, executed := newRuntime(t, f.client())
	registerAgent(t, rt, "exporter", nil)
	out, err := rt.Run(ctx(t), "exporter", runtime.RunInput{Messages: []model.Message{model.UserMessage("Export orders to CSV")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != runtime.StatusCompleted || out.Final == nil || out.Final.Text != "Export started." {
		t.Fatalf("out = %+v", out)
	}
	if got := executed(); len(got) != 1 || got[0] != "ws.startExport" {
		t.Fatalf("executed %v, want ws.startExport once", got)
	}

	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d Converse requests, want the tool call and the answer", len(reqs))
	}
	for i, r := range reqs {
		// The runtime's planner streams: ConverseStream.
		if r.Method != "POST" || r.Path != "/model/"+novaID+"/converse-stream" {
			t.Errorf("request %d: %s %s", i+1, r.Method, r.Path)
		}
		auth := r.Header.Get("Authorization")
		if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || !strings.Contains(auth, "/us-east-1/bedrock/aws4_request") {
			t.Errorf("request %d: Authorization = %q, want a SigV4 signature for bedrock in us-east-1", i+1, auth)
		}
		if got := at(t, r.Body, "toolConfig", "tools", 1, "toolSpec"); !jsonEq(t, got, `{"name":"startExport","description":"The startExport tool.","inputSchema":{"json":`+startExportSchema+`}}`) {
			t.Errorf("request %d: toolConfig.tools[1].toolSpec = %v", i+1, got)
		}
		if got := at(t, r.Body, "toolConfig", "tools", 0, "toolSpec", "name"); got != "listTables" {
			t.Errorf("request %d: toolConfig.tools[0].toolSpec.name = %v", i+1, got)
		}
		if got := at(t, r.Body, "system"); !jsonEq(t, got, `[{"text":"You export tables."}]`) {
			t.Errorf("request %d: system = %v", i+1, got)
		}
	}
	msgs := at(t, reqs[1].Body, "messages").([]any)
	if len(msgs) != 3 {
		t.Fatalf("request 2 has %d messages, want user, assistant, user: %v", len(msgs), msgs)
	}
	if got := msgs[0]; !jsonEq(t, got, `{"role":"user","content":[{"text":"Export orders to CSV"}]}`) {
		t.Errorf("message 1 = %v", got)
	}
	if got := at(t, msgs[1], "role"); got != "assistant" {
		t.Errorf("message 2 role = %v", got)
	}
	if got := at(t, msgs[1], "content", 1, "toolUse"); !jsonEq(t, got, `{"toolUseId":"tu_1","name":"startExport","input":{"table":"orders","format":"csv"}}`) {
		t.Errorf("message 2 toolUse = %v", got)
	}
	if got := at(t, msgs[2], "role"); got != "user" {
		t.Errorf("message 3 role = %v", got)
	}
	result := at(t, msgs[2], "content", 0, "toolResult")
	if got := at(t, result, "toolUseId"); got != "tu_1" {
		t.Errorf("toolResult.toolUseId = %v", got)
	}
	if got := at(t, result, "content", 0, "text").(string); !jsonEq(t, json.RawMessage(got), `{"ok":true}`) {
		t.Errorf("toolResult.content[0].text = %q, want the tool's JSON", got)
	}
	if _, has := result.(map[string]any)["status"]; has {
		t.Errorf("toolResult carries status on a non-Claude model: %v", result)
	}
}

// TestRuntimeRefusesDeferredToolsAtRegistration: an agent that defers a
// tool on a Converse model is refused when it is registered, naming the
// fixes — never registered with the tool advertised eagerly, and no
// request reaches Bedrock.
func TestRuntimeRefusesDeferredToolsAtRegistration(t *testing.T) {
	f := newFake(t)
	rt, _ := newRuntime(t, f.client())
	err := rt.RegisterAgent(runtime.AgentRegistration{
		Name:    "deferring",
		Planner: planner.NewStandard(),
		Uses:    []runtime.ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}},
	})
	if !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("err = %v, want ErrToolSearchUnsupported", err)
	}
	for _, want := range []string{"portable.Wrap", "model.SearchPortable", "model/anthropic", "InvokeModel"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// Portable mode without the wrapper is refused too.
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name:    "portable-unwrapped",
		Planner: planner.NewStandard(),
		Uses:    []runtime.ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}},
		Search:  model.SearchSettings{Mode: model.SearchPortable},
	})
	if !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "portable.Wrap") {
		t.Fatalf("portable mode unwrapped: err = %v, want ErrToolSearchUnsupported naming portable.Wrap", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d HTTP requests, want none", n)
	}
}

// newRuntime registers toolset ws (listTables, startExport) on a runtime
// whose default model is c. executed lists the calls that ran.
func newRuntime(t *testing.T, c model.Client) (rt *runtime.Runtime, executed func() []tools.Ident) {
	t.Helper()
	var mu sync.Mutex
	var calls []tools.Ident
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, c))
	if err != nil {
		t.Fatal(err)
	}
	err = rt.RegisterToolset(runtime.ToolsetRegistration{
		Name:  "ws",
		Specs: []tools.ToolSpec{spec(t, "listTables", listTablesSchema), spec(t, "startExport", startExportSchema)},
		Executor: toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, call.Ident)
			return &toolcall.Result{Result: json.RawMessage(`{"ok":true}`)}, nil
		}),
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

// registerAgent registers an agent using toolset ws, deferring deferred.
func registerAgent(t *testing.T, rt *runtime.Runtime, name string, deferred []string) {
	t.Helper()
	err := rt.RegisterAgent(runtime.AgentRegistration{
		Name:         name,
		SystemPrompt: "You export tables.",
		Planner:      planner.NewStandard(),
		Uses:         []runtime.ToolsetUse{{Toolset: "ws", Deferred: deferred}},
	})
	if err != nil {
		t.Fatal(err)
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
