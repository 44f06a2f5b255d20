package portable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

// callToolRequest is workspaceRequest in call-tool mode.
func callToolRequest(msgs ...model.Message) *model.Request {
	req := workspaceRequest(msgs...)
	req.Search.CallTool = true
	return req
}

// toolsJSON is the tools array of req as a provider adapter would encode
// it.
func toolsJSON(t *testing.T, req model.Request) string {
	t.Helper()
	b, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lastResult is the last tool result of req's messages.
func lastResult(t *testing.T, req model.Request) model.ToolResult {
	t.Helper()
	for i := len(req.Messages) - 1; i >= 0; i-- {
		for j := len(req.Messages[i].Parts) - 1; j >= 0; j-- {
			if r := req.Messages[i].Parts[j].ToolResult; r != nil {
				return *r
			}
		}
	}
	t.Fatal("no tool result in the request")
	return model.ToolResult{}
}

func TestCallToolModeSendsOneToolsArrayEveryRound(t *testing.T) {
	// Two discoveries, a search that finds nothing new, a search past the
	// budget, then a call through call_tool: five rounds, one array.
	inner := scripted.New(
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Call("search_tools", `{"query":"index statistics"}`),
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Call("search_tools", `{"query":"anything else"}`),
		scripted.Call("call_tool", `{"name":"indexStats","arguments":{"table":"orders"}}`),
	)
	c := Wrap(inner)
	resp, err := c.Complete(context.Background(), callToolRequest())
	if err != nil {
		t.Fatal(err)
	}
	reqs := inner.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d rounds, want 5", len(reqs))
	}
	if got := lastResult(t, reqs[4]); string(got.Content) != `{"error":"search-budget-exhausted","budgetCap":3}` || !got.IsError {
		t.Fatalf("the search past the budget was answered %s (error %v)", got.Content, got.IsError)
	}
	// A later invocation of the run (the next planning step) sends the
	// same array too, with both tools discovered and the budget spent.
	next := scripted.New(scripted.Reply("done"))
	history := append(callToolRequest().Messages, resp.Messages...)
	if _, err := Wrap(next).Complete(context.Background(), callToolRequest(history...)); err != nil {
		t.Fatal(err)
	}
	reqs = append(reqs, next.Requests()...)
	want := toolsJSON(t, reqs[0])
	for i, r := range reqs {
		if got := toolsJSON(t, r); got != want {
			t.Fatalf("request %d tools differ:\n got %s\nwant %s", i, got, want)
		}
	}
	var names []string
	for _, d := range reqs[0].Tools {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "openTable,applyFilter,search_tools,call_tool" {
		t.Fatalf("tools = %v, want the inline tools in order, the search tool, call_tool", names)
	}
	if got := model.DiscoveredTools(resp.Messages); len(got) != 2 {
		t.Fatalf("discovered %v, want both found tools recorded", got)
	}
}

func TestCallToolModeSearchAnswerCarriesTheInputSchema(t *testing.T) {
	schema := `{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]}`
	req := callToolRequest()
	req.Tools[2].InputSchema = json.RawMessage(schema) // startExport
	inner := scripted.New(scripted.Call("search_tools", `{"query":"export csv"}`), scripted.Reply("ok"))
	if _, err := Wrap(inner).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	res := lastResult(t, inner.Requests()[1])
	var answer struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(res.Content, &answer); err != nil {
		t.Fatal(err)
	}
	if len(answer.Tools) != 1 || answer.Tools[0].Name != "startExport" || string(answer.Tools[0].InputSchema) != schema {
		t.Fatalf("answer = %s: want startExport with its input schema", res.Content)
	}
	if !strings.Contains(answer.Message, "call_tool(name=") {
		t.Fatalf("the answer does not say how to call the tool: %q", answer.Message)
	}
}

func TestCallToolCallBecomesAnOrdinaryCall(t *testing.T) {
	inner := scripted.New(
		scripted.Call("search_tools", `{"query":"export csv"}`),
		scripted.Calls(scripted.ToolCallSpec{ID: "c7", Name: "call_tool", Payload: `{"name":"startExport","arguments":{"table":"orders"}}`}),
	)
	resp, err := Wrap(inner).Complete(context.Background(), callToolRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 {
		t.Fatalf("calls = %+v", resp.ToolCalls)
	}
	if got := resp.ToolCalls[0]; got.ID != "c7" || got.Name != "startExport" || string(got.Payload) != `{"table":"orders"}` {
		t.Fatalf("planner-facing call = %+v, want startExport with the call's id and arguments", got)
	}
	// The transcript keeps the call as the model made it.
	last := resp.Messages[len(resp.Messages)-1].ToolCalls()
	if len(last) != 1 || last[0].Name != "call_tool" || last[0].ID != "c7" {
		t.Fatalf("assistant message calls = %+v, want the call_tool call", last)
	}
}

func TestCallToolResultsAreSentNamedAsTheCall(t *testing.T) {
	call := model.Message{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &model.ToolCall{
		ID: "c1", Name: "call_tool", Payload: json.RawMessage(`{"name":"startExport","arguments":{}}`),
	}}}}
	// The runtime names the result after the tool that ran.
	result := model.Message{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{
		CallID: "c1", Name: "startExport", Content: json.RawMessage(`{"ok":true}`),
	}}}}
	req := callToolRequest(model.UserMessage("export"), call, result)
	inner := scripted.New(scripted.Reply("done"))
	if _, err := Wrap(inner).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := lastResult(t, inner.Requests()[0]); got.Name != "call_tool" || got.CallID != "c1" {
		t.Fatalf("the inner client read the result as %+v, want it named call_tool", got)
	}
	if req.Messages[2].Parts[0].ToolResult.Name != "startExport" {
		t.Fatal("the caller's messages were changed")
	}
}

func TestMalformedCallToolIsAnsweredAndTheInvocationGoesOn(t *testing.T) {
	inner := scripted.New(
		scripted.Calls(scripted.ToolCallSpec{ID: "bad", Name: "call_tool", Payload: `{"tool":"startExport"}`}),
		scripted.Calls(scripted.ToolCallSpec{ID: "bad2", Name: "call_tool", Payload: `{"name":"search_tools","arguments":{"query":"x"}}`}),
		scripted.Calls(scripted.ToolCallSpec{ID: "good", Name: "call_tool", Payload: `{"name":"openTable"}`}),
	)
	resp, err := Wrap(inner).Complete(context.Background(), callToolRequest())
	if err != nil {
		t.Fatal(err)
	}
	reqs := inner.Requests()
	for i, id := range []string{"bad", "bad2"} {
		got := lastResult(t, reqs[i+1])
		if got.CallID != id || got.Name != "call_tool" || !got.IsError || !bytes.Contains(got.Content, []byte(`"error":"invalid-call"`)) {
			t.Fatalf("call %s answered %+v", id, got)
		}
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "openTable" || string(resp.ToolCalls[0].Payload) != `{}` {
		t.Fatalf("calls = %+v, want the fixed call with {} arguments", resp.ToolCalls)
	}
}

func TestAModelThatKeepsSendingMalformedCallToolEndsInAnError(t *testing.T) {
	var steps []scripted.Step
	for range 20 {
		steps = append(steps, scripted.Call("call_tool", `{"arguments":{}}`))
	}
	inner := scripted.New(steps...)
	_, err := Wrap(inner).Complete(context.Background(), callToolRequest())
	if !errors.Is(err, discovery.ErrSearchLoop) || !strings.Contains(err.Error(), "could not be read") {
		t.Fatalf("err = %v", err)
	}
	if n := inner.Calls(); n != 1+maxInvalidCallRounds {
		t.Fatalf("%d rounds, want %d", n, 1+maxInvalidCallRounds)
	}
}

func TestAModelThatKeepsSearchingInCallToolModeEndsInAnError(t *testing.T) {
	// The search tool stays listed once the budget is spent; the turn's
	// round bound still ends the invocation.
	var steps []scripted.Step
	for range 20 {
		steps = append(steps, scripted.Call("search_tools", `{"query":"x"}`))
	}
	inner := scripted.New(steps...)
	_, err := Wrap(inner).Complete(context.Background(), callToolRequest())
	if !errors.Is(err, discovery.ErrSearchLoop) || !strings.Contains(err.Error(), "kept calling search_tools") {
		t.Fatalf("err = %v", err)
	}
	if n := inner.Calls(); n != model.DefaultSearchCap+2 {
		t.Fatalf("%d rounds, want %d", n, model.DefaultSearchCap+2)
	}
}

func TestAToolNamedCallToolClashesInCallToolMode(t *testing.T) {
	req := callToolRequest()
	req.Tools = append(req.Tools, model.ToolDefinition{Name: "call_tool", InputSchema: json.RawMessage(`{"type":"object"}`)})
	if _, err := Wrap(scripted.New(scripted.Reply("ok"))).Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), "turn CallTool off") {
		t.Fatalf("err = %v", err)
	}
	req.Search.CallTool = false
	if _, err := Wrap(scripted.New(scripted.Reply("ok"))).Complete(context.Background(), req); err != nil {
		t.Fatalf("outside call-tool mode a tool may be called call_tool: %v", err)
	}
}

func TestAForcedDeferredToolIsListedInCallToolMode(t *testing.T) {
	// A provider can only force a listed tool: the one exception to the
	// stable array, for a request that forces a deferred tool.
	inner := scripted.New(scripted.Call("startExport", `{"table":"orders"}`))
	req := callToolRequest()
	req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "startExport"}
	if _, err := Wrap(inner).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	tools := inner.Requests()[0].Tools
	if got := tools[len(tools)-1]; got.Name != "startExport" || got.Deferred || got.Search != nil {
		t.Fatalf("last tool = %+v, want the forced tool listed as an ordinary one", got)
	}
}
