package toolcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/jsonobj"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// parityToolset is the toolset the parity test serves: a tool with a
// closed payload and result, and a bounded listing whose pages continue
// with a partner (ContinueWith) that declares a cursor of its own.
func parityToolset(t testing.TB) []tools.ToolSpec {
	t.Helper()
	specs, err := contract.CompileToolset(parityDeclaration())
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// parityDeclaration is parityToolset as a provider publishes it.
func parityDeclaration() contract.ToolsetDeclaration {
	page := json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"}}},"required":["items"]}`)
	return contract.ToolsetDeclaration{
		Name: "parity",
		Tools: []contract.ToolDeclaration{
			{
				Name: "greet", Title: "Greet", Description: "Greet someone by name.",
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"formal":{"type":"boolean"}},"required":["name"],"additionalProperties":false}`),
				OutputSchema: json.RawMessage(`{"type":"object","properties":{"greeting":{"type":"string"}},"required":["greeting"],"additionalProperties":false}`),
				ServerData:   []contract.ServerDataDeclaration{{Kind: "greet.audit", Audience: tools.AudienceTimeline}},
			},
			{
				Name: "list", Title: "List items", Description: "List the items.",
				InputSchema:  json.RawMessage(`{"type":"object","properties":{}}`),
				OutputSchema: page,
				Bounds:       &tools.BoundsSpec{ContinueWith: "more"},
			},
			{
				Name: "more", Title: "More items", Description: "The next page of items.",
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"cursor":{"type":"string"}}}`),
				OutputSchema: page,
				Bounds:       &tools.BoundsSpec{Cursor: "cursor", NextCursor: "next_cursor"},
			},
		},
	}
}

// counting is an executor that answers with reply and counts its calls.
type counting struct {
	reply func(*toolcall.Call) (*toolcall.Result, error)
	runs  atomic.Int32
}

func (c *counting) Execute(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	c.runs.Add(1)
	return c.reply(call)
}

// parityCase is one call driven through the runtime and through MCP.
type parityCase struct {
	name  string
	tool  string // wire name
	args  string
	reply func(*toolcall.Call) (*toolcall.Result, error)
	// runs is how many times the executor runs on each path.
	runs int
	// kind is the failure kind the model reads, "" for a result.
	kind toolcall.Kind
	// cursorShown is set when only MCP shows the partner's cursor
	// (Options.PartnerCursorHeld in the runtime): the answers then differ
	// by exactly that member.
	cursorShown bool
}

func greeting(call *toolcall.Call) (*toolcall.Result, error) {
	var p struct {
		Name string `json:"name"`
	}
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	return &toolcall.Result{Result: json.RawMessage(fmt.Sprintf(`{"greeting":"Hello, %s"}`, p.Name))}, nil
}

func parityCases() []parityCase {
	total := 7
	cases := []parityCase{
		{name: "valid", tool: "greet", args: `{"name":"Ada"}`, reply: greeting, runs: 1},
		{name: "invalid payload", tool: "greet", args: `{"name":7}`, reply: greeting, kind: toolcall.KindInvalidPayload},
		{name: "refused payload", tool: "greet", args: `{"name":"Ada","NAME":"Eve"}`, reply: greeting, kind: toolcall.KindInvalidPayload},
		{name: "missing fields", tool: "greet", args: `{"formal":true}`, reply: greeting, kind: toolcall.KindMissingFields},
		{name: "result breaks its contract", tool: "greet", args: `{"name":"Ada"}`, runs: 1, kind: toolcall.KindInvalidResult,
			reply: func(*toolcall.Call) (*toolcall.Result, error) {
				return &toolcall.Result{Result: json.RawMessage(`{"greeting":1,"extra":true}`)}, nil
			}},
		{name: "no result", tool: "greet", args: `{"name":"Ada"}`, runs: 1, kind: toolcall.KindToolError,
			reply: func(*toolcall.Call) (*toolcall.Result, error) { return nil, nil }},
		{name: "plain executor error", tool: "greet", args: `{"name":"Ada"}`, runs: 1, kind: toolcall.KindToolError,
			reply: func(*toolcall.Call) (*toolcall.Result, error) { return nil, fmt.Errorf("the greeting service is down") }},
		{name: "server data", tool: "greet", args: `{"name":"Ada"}`, runs: 1,
			reply: func(call *toolcall.Call) (*toolcall.Result, error) {
				res, _ := greeting(call)
				res.ServerData = []toolcall.ServerData{
					{Kind: "greet.audit", Data: json.RawMessage(`{"who":"secret-audit-entry"}`)},
					{Kind: "greet.cache", Audience: tools.AudienceInternal, Data: json.RawMessage(`{"cache":"secret-internal"}`)},
				}
				return res, nil
			}},
		{name: "bounded, bounds beside the result", tool: "list", args: `{}`, runs: 1,
			reply: func(*toolcall.Call) (*toolcall.Result, error) {
				return &toolcall.Result{Result: json.RawMessage(`{"items":["a","b"]}`), Bounds: &toolcall.Bounds{Returned: 2, Total: &total, Truncated: true, NextCursor: "c2"}}, nil
			}},
		{name: "continued partner, bounds in the result", tool: "more", args: `{"cursor":"c2"}`, runs: 1, cursorShown: true,
			reply: func(*toolcall.Call) (*toolcall.Result, error) {
				return &toolcall.Result{Result: json.RawMessage(`{"items":["c","d"],"returned":2,"truncated":true,"next_cursor":"c3"}`)}, nil
			}},
		{name: "bounded without bounds", tool: "list", args: `{}`, runs: 1, kind: toolcall.KindMissingBounds,
			reply: func(*toolcall.Call) (*toolcall.Result, error) {
				return &toolcall.Result{Result: json.RawMessage(`{"items":[]}`)}, nil
			}},
	}
	for _, k := range toolcall.Kinds {
		cases = append(cases, parityCase{
			name: "executor fails with " + string(k), tool: "greet", args: `{"name":"Ada"}`, runs: 1, kind: k,
			reply: func(*toolcall.Call) (*toolcall.Result, error) {
				return nil, fmt.Errorf("wrapped: %w", toolcall.Fail(k, "", "the executor says %s", k))
			},
		})
	}
	cases = append(cases, parityCase{
		name: "executor returns a failure of its own kind", tool: "greet", args: `{"name":"Ada"}`, runs: 1, kind: "unknown_person",
		reply: func(*toolcall.Call) (*toolcall.Result, error) {
			return &toolcall.Result{Failure: &toolcall.Failure{Code: "unknown_person", Message: "Nobody is called Ada here."}}, nil
		},
	})
	return cases
}

// TestRuntimeAndMCPAnswerAlike drives each call through the runtime and
// through the MCP server and compares what the model reads and how often
// the executor ran.
func TestRuntimeAndMCPAnswerAlike(t *testing.T) {
	specs := parityToolset(t)
	for _, tc := range parityCases() {
		t.Run(tc.name, func(t *testing.T) {
			viaRuntime := &counting{reply: tc.reply}
			rtAnswer, rtIsError := callThroughRuntime(t, specs, viaRuntime, tc.tool, tc.args)
			viaMCP := &counting{reply: tc.reply}
			mcpAnswer, mcpIsError := callThroughMCP(t, specs, viaMCP, tc.tool, tc.args)

			if got := int(viaRuntime.runs.Load()); got != tc.runs {
				t.Errorf("runtime: the executor ran %d times, want %d", got, tc.runs)
			}
			if got := int(viaMCP.runs.Load()); got != tc.runs {
				t.Errorf("MCP: the executor ran %d times, want %d", got, tc.runs)
			}
			if rtIsError != (tc.kind != "") || mcpIsError != (tc.kind != "") {
				t.Errorf("is error: runtime %v, MCP %v, want %v", rtIsError, mcpIsError, tc.kind != "")
			}
			if tc.kind != "" {
				var f struct {
					Error    toolcall.Kind     `json:"error"`
					Message  string            `json:"message"`
					Recovery toolcall.Recovery `json:"recovery"`
				}
				if err := json.Unmarshal(rtAnswer, &f); err != nil || f.Error != tc.kind || f.Message == "" || !f.Recovery.Valid() {
					t.Errorf("runtime answer %s: want a %s failure with a message and a recovery (%v)", rtAnswer, tc.kind, err)
				}
			}
			want := mcpAnswer
			if tc.cursorShown {
				ms, err := jsonobj.Members(mcpAnswer)
				if err != nil {
					t.Fatalf("MCP answer %s: %v", mcpAnswer, err)
				}
				if _, ok := jsonobj.Get(ms, "next_cursor"); !ok {
					t.Fatalf("MCP answer %s: the partner's cursor is missing", mcpAnswer)
				}
				want = jsonobj.Encode(jsonobj.Without(ms, "next_cursor"))
			}
			if !bytes.Equal(rtAnswer, want) {
				t.Errorf("the answers differ:\nruntime: %s\nMCP:     %s", rtAnswer, mcpAnswer)
			}
			for _, secret := range []string{"secret-audit-entry", "secret-internal"} {
				if bytes.Contains(rtAnswer, []byte(secret)) || bytes.Contains(mcpAnswer, []byte(secret)) {
					t.Errorf("server data %q reached the model: runtime %s, MCP %s", secret, rtAnswer, mcpAnswer)
				}
			}
		})
	}
}

// callThroughRuntime runs an agent whose scripted model calls tool with
// args once, and returns the tool result the model read.
func callThroughRuntime(t *testing.T, specs []tools.ToolSpec, exec toolcall.Executor, tool, args string) (json.RawMessage, bool) {
	t.Helper()
	return runtimeAnswer(t, func(rt *runtime.Runtime) runtime.AgentRegistration {
		if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "parity", Specs: specs, Executor: exec}); err != nil {
			t.Fatal(err)
		}
		return runtime.AgentRegistration{Uses: []runtime.ToolsetUse{{Toolset: "parity"}}}
	}, tool, args)
}

// runtimeAnswer runs an agent, set up by setup on a new runtime, whose
// scripted model calls tool with args once, with the run options opts,
// and returns the tool result the model read.
func runtimeAnswer(t *testing.T, setup func(*runtime.Runtime) runtime.AgentRegistration, tool, args string, opts ...runtime.RunOption) (json.RawMessage, bool) {
	t.Helper()
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, scripted.New(
		scripted.Call(tool, args),
		scripted.Reply("done"),
	)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	agent := setup(rt)
	agent.Name, agent.Planner = "parity-agent", planner.NewStandard()
	if err := rt.RegisterAgent(agent); err != nil {
		t.Fatal(err)
	}
	out, err := rt.Run(context.Background(), "parity-agent", runtime.RunInput{Messages: []model.Message{model.UserMessage("Go.")}}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range out.Messages {
		for _, p := range m.Parts {
			if p.Kind == model.PartToolResult && p.ToolResult != nil && p.ToolResult.Name == tool {
				return p.ToolResult.Content, p.ToolResult.IsError
			}
		}
	}
	t.Fatalf("the run has no result of %s: %+v", tool, out.Messages)
	return nil, false
}

// callThroughMCP serves the toolset over MCP (every tool listed, a
// full-tier client on the SDK's in-memory transport), calls tool with
// args and returns the text the client read.
func callThroughMCP(t *testing.T, specs []tools.ToolSpec, exec toolcall.Executor, tool, args string) (json.RawMessage, bool) {
	t.Helper()
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: "parity", Specs: specs, Executor: exec}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return mcpAnswer(t, src, tool, args)
}

// mcpAnswer serves src over MCP (every tool listed, a full-tier client on
// the SDK's in-memory transport), calls tool with args and returns the
// text the client read.
func mcpAnswer(t *testing.T, src mcp.Source, tool, args string) (json.RawMessage, bool) {
	t.Helper()
	s, err := mcp.New(mcp.Config{Source: src, ExposeAll: true, Anonymous: tools.ExposureFull, Undeclared: tools.ExposureFull})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	answer, isError, err := mcpCall(t, s, tool, args)
	if err != nil {
		t.Fatalf("MCP call %s: %v", tool, err)
	}
	return answer, isError
}

// mcpCall calls tool with args on s as a full-tier client on the SDK's
// in-memory transport; the error is the protocol's (an unknown tool).
func mcpCall(t *testing.T, s *mcp.Server, tool, args string) (json.RawMessage, bool, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	serverSide, clientSide := sdk.NewInMemoryTransports()
	go func() { _ = s.ServeTransport(ctx, serverSide) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "parity", Version: "1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return nil, false, err
	}
	if len(res.Content) != 1 {
		t.Fatalf("MCP call %s: %d content parts", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("MCP call %s: content %T", tool, res.Content[0])
	}
	return json.RawMessage(text.Text), res.IsError, nil
}
