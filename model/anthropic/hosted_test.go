package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/tools"
)

// Provider-shaped blocks of a hosted search (Anthropic docs, "Tool search
// tool", response format).
const (
	searchUse = `{"type":"server_tool_use","id":"srvtoolu_01","name":"tool_search_tool_bm25","input":{"query":"export records csv"},"caller":{"type":"direct"}}`
	searchHit = `{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_01","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"records_export"}]}}`
	exportUse = `{"type":"tool_use","id":"toolu_01","name":"records_export","input":{"table":"orders","format":"csv"},"caller":{"type":"direct"}}`
)

// hostedRound is the response of a search round then a business call.
var hostedRound = message("msg_01", "tool_use", 80, `{"type":"text","text":"Let me find an export tool."}`, searchUse, searchHit, exportUse)

func TestHostedSearchRoundThenBusinessCall(t *testing.T) {
	p := newProvider(t, ok(hostedRound))
	resp, err := p.client().Complete(context.Background(), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatal(err)
	}

	r := p.Request(0)
	if r.Method != http.MethodPost || r.Path != "/v1/messages" {
		t.Fatalf("request %s %s, want POST /v1/messages", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
		t.Fatalf("Authorization = %q", got)
	}
	if got := r.Header.Get("anthropic-beta"); got != "" {
		t.Fatalf("anthropic-beta = %q, want none: tool search is GA in the SDK's Messages API", got)
	}
	providerfake.AssertJSON(t, "request", r.Body, `{
	  "model":"claude-sonnet-4-5","max_tokens":1024,
	  "system":[{"type":"text","text":"You manage records."}],
	  "messages":[{"role":"user","content":[{"type":"text","text":"Export the orders table as CSV."}]}],
	  "tools":`+toolsOf(bm25Tool)+`}`)

	call := model.ToolCall{ID: "toolu_01", Name: "records_export", Payload: json.RawMessage(`{"table":"orders","format":"csv"}`)}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != call.ID || resp.ToolCalls[0].Name != call.Name || string(resp.ToolCalls[0].Payload) != string(call.Payload) {
		t.Fatalf("tool calls = %+v, want only the business call %+v", resp.ToolCalls, call)
	}
	if resp.StopReason != model.StopToolUse || resp.Usage.InputTokens != 100 || resp.Usage.OutputTokens != 80 {
		t.Fatalf("stop %q usage %+v", resp.StopReason, resp.Usage)
	}
	if len(resp.Messages) != 1 {
		t.Fatalf("%d messages, want 1", len(resp.Messages))
	}
	m := resp.Messages[0]
	if m.Role != model.RoleAssistant || len(m.Parts) != 2 || m.Parts[0].Text != "Let me find an export tool." || m.Parts[1].ToolCall == nil || m.Parts[1].ToolCall.ID != "toolu_01" {
		t.Fatalf("message parts = %+v", m.Parts)
	}
	rec, found, err := anthropic.RecordOf(m)
	if err != nil || !found {
		t.Fatalf("record: %v %v", found, err)
	}
	if len(rec.Blocks) != 2 || rec.Blocks[0].At != 1 || rec.Blocks[1].At != 2 {
		t.Fatalf("record blocks = %+v", rec.Blocks)
	}
	providerfake.AssertJSON(t, "server_tool_use kept", rec.Blocks[0].Block, searchUse)
	providerfake.AssertJSON(t, "tool_search_tool_result kept", rec.Blocks[1].Block, searchHit)
	if _, ok := rec.Definitions["records_export"]; !ok || len(rec.Definitions) != 1 {
		t.Fatalf("record definitions = %v", rec.Definitions)
	}
	d, ok := m.Discovery()
	if !ok || !reflect.DeepEqual(d, model.Discovery{Tools: []tools.Ident{"records.export"}}) {
		t.Fatalf("discovery = %+v (%v), want records.export with no counted search", d, ok)
	}
}

func TestHostedSearchTwoRoundsInOneResponse(t *testing.T) {
	use2 := `{"type":"server_tool_use","id":"srvtoolu_02","name":"tool_search_tool_bm25","input":{"query":"statistics"},"caller":{"type":"direct"}}`
	hit2 := `{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_02","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"records_analyze"}]}}`
	analyze := `{"type":"tool_use","id":"toolu_02","name":"records_analyze","input":{"table":"orders"},"caller":{"type":"direct"}}`
	p := newProvider(t, ok(message("msg_02", "tool_use", 120, searchUse, searchHit, use2, hit2, exportUse, analyze)))
	resp, err := p.client().Complete(context.Background(), request("Export and analyze orders."))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Requests()) != 1 {
		t.Fatalf("%d requests: the hosted search runs within one response", len(p.Requests()))
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Name != "records_export" || resp.ToolCalls[1].Name != "records_analyze" {
		t.Fatalf("tool calls = %+v", resp.ToolCalls)
	}
	m := resp.Messages[0]
	d, _ := m.Discovery()
	if !reflect.DeepEqual(d, model.Discovery{Tools: []tools.Ident{"records.export", "records.analyze"}}) {
		t.Fatalf("discovery = %+v", d)
	}
	rec, _, _ := anthropic.RecordOf(m)
	var at []int
	for _, b := range rec.Blocks {
		at = append(at, b.At)
	}
	if !reflect.DeepEqual(at, []int{0, 1, 2, 3}) || len(rec.Definitions) != 2 {
		t.Fatalf("record = %+v", rec)
	}
}

func TestHostedRegexSearchIsSelectable(t *testing.T) {
	p := newProvider(t, ok(message("msg_03", "end_turn", 5, `{"type":"text","text":"ok"}`)))
	if _, err := p.client(anthropic.WithSearch(anthropic.SearchRegex)).Complete(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "tools", field(t, p.Request(0).Body, "tools"), toolsOf(`{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`))
}

func TestForcedDeferredToolStaysEager(t *testing.T) {
	p := newProvider(t, ok(message("msg_04", "tool_use", 10, exportUse)))
	req := request("Export orders.")
	req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "records_export"}
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := p.Request(0).Body
	providerfake.AssertJSON(t, "tool_choice", field(t, body, "tool_choice"), `{"type":"tool","name":"records_export"}`)
	var sent []map[string]any
	if err := json.Unmarshal(field(t, body, "tools"), &sent); err != nil {
		t.Fatal(err)
	}
	if _, deferred := sent[1]["defer_loading"]; sent[1]["name"] != "records_export" || deferred {
		t.Fatalf("forced tool sent as %v, want it without defer_loading", sent[1])
	}
	if sent[2]["defer_loading"] != true || sent[3]["type"] != "tool_search_tool_bm25_20251119" {
		t.Fatalf("the other deferred tool and the search tool: %v %v", sent[2], sent[3])
	}
}

func TestNoDeferredToolsSendsNoSearchTool(t *testing.T) {
	p := newProvider(t, ok(message("msg_05", "end_turn", 5, `{"type":"text","text":"ok"}`)))
	req := request("hi")
	req.Tools = req.Tools[:1]
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "tools", field(t, p.Request(0).Body, "tools"), `[{"name":"records_lookup","description":"Fetch one record by id.","input_schema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}]`)
}

func TestUndiscoveredCallIsReturnedAsAnOrdinaryCall(t *testing.T) {
	analyze := `{"type":"tool_use","id":"toolu_09","name":"records_analyze","input":{"table":"orders"}}`
	p := newProvider(t, ok(message("msg_06", "tool_use", 10, analyze)))
	resp, err := p.client().Complete(context.Background(), request("Analyze orders."))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "records_analyze" || resp.ToolCalls[0].Ident != "" {
		t.Fatalf("tool calls = %+v, want the call as the model made it", resp.ToolCalls)
	}
	m := resp.Messages[0]
	if _, ok := m.Discovery(); ok {
		t.Fatalf("a discovery was recorded for a tool no search returned: %s", m.Meta[model.DiscoveryMetaKey])
	}
	if _, ok := m.Meta[anthropic.MetaKey]; ok {
		t.Fatalf("a record was written for a response without search blocks: %s", m.Meta[anthropic.MetaKey])
	}
}

func TestHostedSearchErrorCodeIsTyped(t *testing.T) {
	failed := `{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_01","content":{"type":"tool_search_tool_result_error","error_code":"too_many_requests","error_message":"Rate limit exceeded for tool search."}}`
	p := newProvider(t, ok(message("msg_07", "end_turn", 10, searchUse, failed, `{"type":"text","text":"The search failed."}`)))
	_, err := p.client().Complete(context.Background(), request("Export orders."))
	var se *anthropic.SearchError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *SearchError", err)
	}
	if se.Code != anthropic.SearchTooManyRequests || se.ToolUseID != "srvtoolu_01" || se.Message != "Rate limit exceeded for tool search." || !se.Temporary() {
		t.Fatalf("search error = %+v", se)
	}
	if want := "anthropic: hosted tool search srvtoolu_01 failed: too_many_requests: Rate limit exceeded for tool search."; err.Error() != want {
		t.Fatalf("message = %q", err)
	}
}

func TestProviderErrorIsTypedAndWrapsTheSDKError(t *testing.T) {
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"tools.3: Tool search requires a supported model."},"request_id":"req_test"}`
	p := newProvider(t, providerfake.Answer{Status: http.StatusBadRequest, Body: body, Header: requestID})
	_, err := p.client().Complete(context.Background(), request("hi"))
	var ae *anthropic.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want an *APIError", err)
	}
	if ae.StatusCode != 400 || ae.Type != "invalid_request_error" || ae.Message != "tools.3: Tool search requires a supported model." || ae.RequestID != "req_test" {
		t.Fatalf("api error = %+v", ae)
	}
	var raw *sdk.Error
	if !errors.As(err, &raw) || raw.StatusCode != 400 {
		t.Fatalf("the SDK's error is not reachable: %v", err)
	}
	if want := "anthropic: provider error 400 invalid_request_error: tools.3: Tool search requires a supported model. (request-id req_test)"; err.Error() != want {
		t.Fatalf("message = %q", err)
	}
}

func TestPauseTurnIsNotContinued(t *testing.T) {
	p := newProvider(t, ok(message("msg_08", "pause_turn", 10, searchUse, searchHit)))
	if _, err := p.client().Complete(context.Background(), request("Export orders.")); !errors.Is(err, anthropic.ErrPauseTurn) {
		t.Fatalf("err = %v, want ErrPauseTurn", err)
	}
}
