package compat

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

const (
	exportFound = `{"query":"export a table to csv","tools":[{"name":"startExport","description":"Export a table to a file."}]}`
	statsFound  = `{"query":"index statistics","tools":[{"name":"indexStats","description":"Show index statistics of a table."}]}`
	exhausted   = `{"error":"search-budget-exhausted","budgetCap":3}`
)

func TestPortableSearchThenBusinessCallCarriesTheMatchInTheVeryNextRequest(t *testing.T) {
	p := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		callsTool("call_b1", "startExport", `{"table":"orders","format":"csv"}`),
	)
	resp, err := p.client().Complete(ctx(t), portableRequest(model.UserMessage("Export orders to CSV")))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2 (one invocation: search round, then the business call)", n)
	}
	// First request: inline tools and search_tools, no deferred tool.
	providerfake.AssertJSON(t, "request 1", p.Request(0).Body, body(
		[]string{systemWire, userMsg("Export orders to CSV")},
		toolsJSON(listTablesWire, runQueryWire, searchToolsWire),
		`"max_tokens":512`))
	// The very next request carries the discovered tool's definition: it
	// joined the active set inside the search execution. Its output cap is
	// what the first round (20 tokens) left of the invocation's 512.
	providerfake.AssertJSON(t, "request 2", p.Request(1).Body, body(
		[]string{systemWire, userMsg("Export orders to CSV"),
			callMsg("call_s1", "search_tools", `{"query":"export a table to csv"}`),
			toolMsg("call_s1", exportFound)},
		toolsJSON(listTablesWire, runQueryWire, startExportWire, searchToolsWire),
		`"max_tokens":492`))

	// The planner sees only the business call.
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "startExport" || resp.ToolCalls[0].ID != "call_b1" || string(resp.ToolCalls[0].Payload) != `{"table":"orders","format":"csv"}` {
		t.Fatalf("ToolCalls = %+v, want only the startExport call", resp.ToolCalls)
	}
	if resp.StopReason != model.StopToolUse {
		t.Fatalf("StopReason = %q", resp.StopReason)
	}
	// The transcript keeps the search round, with the discovery record.
	if len(resp.Messages) != 3 {
		t.Fatalf("%d messages, want search call, search result, business call", len(resp.Messages))
	}
	d, ok := resp.Messages[1].Discovery()
	if !ok || !slices.Equal(d.Tools, []tools.Ident{"ws.startExport"}) || d.Searches != 1 || d.Exhausted {
		t.Fatalf("discovery record = %+v, %v", d, ok)
	}
	if _, ok := resp.Messages[0].Discovery(); ok {
		t.Fatal("the assistant message got a discovery record")
	}
	if got := resp.Usage; got != (model.Usage{InputTokens: 200, OutputTokens: 40}) {
		t.Fatalf("Usage = %+v, want both rounds summed", got)
	}
}

func TestPortableTwoSearchRoundsGrowTheActiveSetRoundByRound(t *testing.T) {
	p := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		callsTool("call_s2", "search_tools", `{"query":"index statistics"}`),
		callsTool("call_b1", "indexStats", `{"table":"orders"}`),
	)
	resp, err := p.client().Complete(ctx(t), portableRequest(model.UserMessage("Is orders indexed?")))
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	history := []string{systemWire, userMsg("Is orders indexed?")}
	providerfake.AssertJSON(t, "request 1", reqs[0].Body, body(history, toolsJSON(listTablesWire, runQueryWire, searchToolsWire), `"max_tokens":512`))
	history = append(history, callMsg("call_s1", "search_tools", `{"query":"export a table to csv"}`), toolMsg("call_s1", exportFound))
	providerfake.AssertJSON(t, "request 2", reqs[1].Body, body(history, toolsJSON(listTablesWire, runQueryWire, startExportWire, searchToolsWire), `"max_tokens":492`))
	history = append(history, callMsg("call_s2", "search_tools", `{"query":"index statistics"}`), toolMsg("call_s2", statsFound))
	providerfake.AssertJSON(t, "request 3", reqs[2].Body, body(history, toolsJSON(listTablesWire, runQueryWire, startExportWire, indexStatsWire, searchToolsWire), `"max_tokens":472`))

	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "indexStats" {
		t.Fatalf("ToolCalls = %+v", resp.ToolCalls)
	}
	if len(resp.Messages) != 5 {
		t.Fatalf("%d messages, want 2 search rounds and the business call", len(resp.Messages))
	}
	all := append([]model.Message{model.UserMessage("Is orders indexed?")}, resp.Messages...)
	if got := model.DiscoveredTools(all); !slices.Equal(got, []tools.Ident{"ws.indexStats", "ws.startExport"}) {
		t.Fatalf("discovered %v", got)
	}
	if n := model.SearchesThisTurn(all); n != 2 {
		t.Fatalf("searches this turn = %d, want 2", n)
	}
}

func TestPortableFourthSearchWithCapThreeIsAnsweredBudgetExhausted(t *testing.T) {
	p := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		callsTool("call_s2", "search_tools", `{"query":"index statistics"}`),
		callsTool("call_s3", "search_tools", `{"query":"backup"}`),
		callsTool("call_s4", "search_tools", `{"query":"snapshot"}`),
		replies("I cannot find a backup tool; shall I export the table instead?"),
	)
	req := portableRequest(model.UserMessage("Back up orders"))
	req.Search.Cap = 3
	resp, err := p.client().Complete(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	msgs := wireMessages(t, reqs[4].Body)
	last := msgs[len(msgs)-1]
	if last["role"] != "tool" || last["tool_call_id"] != "call_s4" || last["content"] != exhausted {
		t.Fatalf("the 4th search was answered %v, want %s", last, exhausted)
	}
	for i, want := range []string{"call_s1", "call_s2", "call_s3"} {
		m := msgs[2+2*i+1]
		if m["tool_call_id"] != want || m["content"] == exhausted {
			t.Fatalf("search %d answered %v, want results", i+1, m)
		}
	}
	d, _ := resp.Messages[7].Discovery()
	if !d.Exhausted || d.Searches != 0 || len(d.Tools) != 0 {
		t.Fatalf("record of the refused search = %+v", d)
	}
	if len(resp.ToolCalls) != 0 || resp.Text() == "" || resp.StopReason != model.StopEndTurn {
		t.Fatalf("response = %+v", resp)
	}
}

func TestPortableBudgetCountsSearchesOfEarlierInvocationsOfTheTurn(t *testing.T) {
	// A stored transcript of this turn: three searches answered in an
	// earlier invocation, recorded in message metadata, then a business call
	// and its result.
	history := []model.Message{model.UserMessage("Export orders, then show its index stats")}
	for i, q := range []string{"export a table to csv", "csv", "download"} {
		id := "call_s" + string(rune('1'+i))
		history = append(history, assistantCall(id, "search_tools", `{"query":"`+q+`"}`))
		res := toolResult(id, "search_tools", `{"tools":[]}`)
		rec := model.Discovery{Searches: 1}
		if i == 0 {
			rec.Tools = []tools.Ident{"ws.startExport"}
		}
		res.SetDiscovery(rec)
		history = append(history, res)
	}
	history = append(history, assistantCall("call_b1", "startExport", `{"table":"orders"}`), toolResult("call_b1", "startExport", `{"export_id":"e1"}`))

	p := newProvider(t,
		callsTool("call_s4", "search_tools", `{"query":"index statistics"}`),
		replies("Export e1 started; I cannot search for more tools this turn."),
	)
	req := portableRequest(history...)
	req.Search.Cap = 3
	resp, err := p.client().Complete(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	// The discovery recorded earlier is re-applied: startExport is active.
	if got := wireToolNames(t, reqs[0].Body); !slices.Equal(got, []string{"listTables", "runQuery", "startExport", "search_tools"}) {
		t.Fatalf("tools of request 1 = %v", got)
	}
	msgs := wireMessages(t, reqs[1].Body)
	if last := msgs[len(msgs)-1]; last["tool_call_id"] != "call_s4" || last["content"] != exhausted {
		t.Fatalf("the turn's 4th search was answered %v, want %s", last, exhausted)
	}
	if d, _ := resp.Messages[1].Discovery(); !d.Exhausted {
		t.Fatalf("exhaustion not recorded: %+v", d)
	}
}

func TestPortableBudgetStartsAfreshWithANewUserTurn(t *testing.T) {
	var history []model.Message
	history = append(history, model.UserMessage("Earlier turn"))
	res := toolResult("call_s0", "search_tools", `{"tools":[]}`)
	res.SetDiscovery(model.Discovery{Searches: 3})
	history = append(history, assistantCall("call_s0", "search_tools", `{"query":"x"}`), res, model.AssistantMessage("Nothing found."))
	history = append(history, model.UserMessage("Now export orders"))

	p := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		callsTool("call_b1", "startExport", `{"table":"orders"}`),
	)
	req := portableRequest(history...)
	req.Search.Cap = 3
	if _, err := p.client().Complete(ctx(t), req); err != nil {
		t.Fatal(err)
	}
	msgs := wireMessages(t, p.Request(1).Body)
	if last := msgs[len(msgs)-1]; last["content"] != exportFound {
		t.Fatalf("first search of the new turn answered %v", last["content"])
	}
}

func TestPortableUndiscoveredCallIsReturnedAsAnOrdinaryCall(t *testing.T) {
	p := newProvider(t, callsTool("call_b1", "startExport", `{"table":"orders"}`))
	resp, err := p.client().Complete(ctx(t), portableRequest(model.UserMessage("Export orders")))
	if err != nil {
		t.Fatal(err)
	}
	if got := wireToolNames(t, p.Request(0).Body); slices.Contains(got, "startExport") {
		t.Fatalf("the undiscovered tool was advertised: %v", got)
	}
	// The adapter does not judge the call: runtime admission refuses it
	// (see TestRuntimeRefusesAnUndiscoveredCallWithThePortableRecovery).
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "startExport" || len(p.Requests()) != 1 {
		t.Fatalf("ToolCalls = %+v after %d requests", resp.ToolCalls, len(p.Requests()))
	}
	if _, ok := resp.Messages[0].Discovery(); ok || len(resp.Messages) != 1 {
		t.Fatalf("messages = %+v", resp.Messages)
	}
}

func TestSupportsSearchOnlyInPortableMode(t *testing.T) {
	c := newProvider(t).client()
	if err := c.SupportsSearch(model.SearchSettings{Mode: model.SearchPortable}); err != nil {
		t.Fatalf("portable: %v", err)
	}
	err := c.SupportsSearch(model.SearchSettings{})
	if !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "model.SearchPortable") {
		t.Fatalf("native: err = %v, want ErrToolSearchUnsupported naming the portable opt-in", err)
	}
}

func TestDeferredToolsWithoutPortableOptInAreUnsupportedAndSendNothing(t *testing.T) {
	p := newProvider(t)
	c := p.client()
	req := portableRequest(model.UserMessage("Export orders"))
	req.Search = model.SearchSettings{} // native: this API has none
	_, err := c.Complete(ctx(t), req)
	if !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("Complete err = %v, want ErrToolSearchUnsupported", err)
	}
	if _, err := c.Stream(ctx(t), req); !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("Stream err = %v, want ErrToolSearchUnsupported", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d HTTP requests, want none", n)
	}
}

// wireMessages decodes the "messages" of a request body.
func wireMessages(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var req struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return req.Messages
}

// wireToolNames lists the function names of a request body's tools.
func wireToolNames(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

// assistantCall is an assistant message calling one tool.
func assistantCall(id, name, args string) model.Message {
	return model.Message{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: id, Name: name, Payload: json.RawMessage(args)}}}}
}

// toolResult is a tool message answering one call.
func toolResult(id, name, content string) model.Message {
	return model.Message{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: id, Name: name, Content: json.RawMessage(content)}}}}
}
