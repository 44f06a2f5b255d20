package anthropic_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/tools"
)

// clientTool is the client-side search tool as the provider receives it.
const clientTool = `{"name":"tool_search","description":"Search the tools that are not loaded yet by what they do. The tools it returns become callable: call them by name afterwards.","input_schema":{"type":"object","properties":{"query":{"type":"string","description":"Words describing the capability you need, or a tool's name."}},"required":["query"]}}`

// searchCall is a call of the client-side search tool.
func searchCall(id, query string) string {
	return `{"type":"tool_use","id":"` + id + `","name":"tool_search","input":{"query":"` + query + `"},"caller":{"type":"direct"}}`
}

// clientSearch returns an adapter with the client-side search variant.
func clientSearch(p *provider, opts ...anthropic.Option) *anthropic.Client {
	return p.client(append([]anthropic.Option{anthropic.WithSearch(anthropic.SearchClient), anthropic.WithDiscovery(discovery.Settings{Limit: 1})}, opts...)...)
}

func TestClientSearchRoundThenBusinessCall(t *testing.T) {
	p := newProvider(t,
		ok(message("msg_11", "tool_use", 30, `{"type":"text","text":"Searching."}`, searchCall("toolu_s1", "export records csv"))),
		ok(message("msg_12", "tool_use", 40, exportUse)),
	)
	resp, err := clientSearch(p).Complete(context.Background(), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatal(err)
	}
	first := p.Request(0).Body
	providerfake.AssertJSON(t, "tools", field(t, first, "tools"), toolsOf(clientTool))
	providerfake.AssertJSON(t, "second request", p.Request(1).Body, `{
	  "model":"claude-sonnet-4-5","max_tokens":994,
	  "system":[{"type":"text","text":"You manage records."}],
	  "messages":[
	    {"role":"user","content":[{"type":"text","text":"Export the orders table as CSV."}]},
	    {"role":"assistant","content":[{"type":"text","text":"Searching."},`+searchCall("toolu_s1", "export records csv")+`]},
	    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s1","content":[{"type":"tool_reference","tool_name":"records_export"}]}]}],
	  "tools":`+toolsOf(clientTool)+`}`)

	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "records_export" {
		t.Fatalf("tool calls = %+v, want only the business call", resp.ToolCalls)
	}
	if len(resp.Messages) != 2 {
		t.Fatalf("%d messages, want one per provider response", len(resp.Messages))
	}
	if parts := resp.Messages[0].Parts; len(parts) != 1 || parts[0].Kind != model.PartText {
		t.Fatalf("the search call leaked into the parts: %+v", parts)
	}
	d, _ := resp.Messages[0].Discovery()
	if !reflect.DeepEqual(d, model.Discovery{Tools: []tools.Ident{"records.export"}, Searches: 1}) {
		t.Fatalf("discovery = %+v", d)
	}
	if _, ok := resp.Messages[1].Discovery(); ok {
		t.Fatal("the business call's message records a discovery")
	}
	if resp.Usage.OutputTokens != 70 || resp.Usage.InputTokens != 200 {
		t.Fatalf("usage = %+v, want both rounds", resp.Usage)
	}
}

func TestClientSearchTwoRounds(t *testing.T) {
	p := newProvider(t,
		ok(message("msg_21", "tool_use", 10, searchCall("toolu_s1", "export records csv"))),
		ok(message("msg_22", "tool_use", 10, searchCall("toolu_s2", "statistics over records"))),
		ok(message("msg_23", "tool_use", 10, exportUse)),
	)
	resp, err := clientSearch(p).Complete(context.Background(), request("Export and analyze."))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Requests()) != 3 || len(resp.Messages) != 3 {
		t.Fatalf("%d requests, %d messages", len(p.Requests()), len(resp.Messages))
	}
	var found []tools.Ident
	for _, m := range resp.Messages[:2] {
		d, _ := m.Discovery()
		if d.Searches != 1 {
			t.Fatalf("discovery %+v, want one counted search", d)
		}
		found = append(found, d.Tools...)
	}
	if !reflect.DeepEqual(found, []tools.Ident{"records.export", "records.analyze"}) {
		t.Fatalf("found %v", found)
	}
	if n := model.SearchesThisTurn(append([]model.Message{model.UserMessage("x")}, resp.Messages...)); n != 2 {
		t.Fatalf("searches this turn = %d", n)
	}
	// The third request replays both rounds in place.
	providerfake.AssertJSON(t, "third request messages", field(t, p.Request(2).Body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Export and analyze."}]},
	  {"role":"assistant","content":[`+searchCall("toolu_s1", "export records csv")+`]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s1","content":[{"type":"tool_reference","tool_name":"records_export"}]}]},
	  {"role":"assistant","content":[`+searchCall("toolu_s2", "statistics over records")+`]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s2","content":[{"type":"tool_reference","tool_name":"records_analyze"}]}]}]`)
}

func TestClientSearchBudgetExhaustion(t *testing.T) {
	p := newProvider(t,
		ok(message("msg_31", "tool_use", 10, searchCall("toolu_s1", "export records csv"))),
		ok(message("msg_32", "tool_use", 10, searchCall("toolu_s2", "statistics"))),
		ok(message("msg_33", "end_turn", 10, `{"type":"text","text":"I cannot search any more."}`)),
	)
	req := request("Export and analyze.")
	req.Search.Cap = 1
	resp, err := clientSearch(p).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "refusal", field(t, p.Request(2).Body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Export and analyze."}]},
	  {"role":"assistant","content":[`+searchCall("toolu_s1", "export records csv")+`]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s1","content":[{"type":"tool_reference","tool_name":"records_export"}]}]},
	  {"role":"assistant","content":[`+searchCall("toolu_s2", "statistics")+`]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s2","is_error":true,"content":[{"type":"text","text":"{\"error\":\"search-budget-exhausted\",\"budgetCap\":1}"}]}]}]`)
	d, _ := resp.Messages[1].Discovery()
	if !reflect.DeepEqual(d, model.Discovery{Exhausted: true}) {
		t.Fatalf("discovery of the refused search = %+v", d)
	}
	transcript := append([]model.Message{model.UserMessage("Export and analyze.")}, resp.Messages...)
	if !model.SearchExhaustedThisTurn(transcript) || model.SearchesThisTurn(transcript) != 1 {
		t.Fatal("the exhaustion is not recorded for the turn")
	}
	if resp.Text() != "I cannot search any more." || len(resp.ToolCalls) != 0 || resp.StopReason != model.StopEndTurn {
		t.Fatalf("response = %+v", resp)
	}
}

func TestClientSearchBudgetCountsEarlierSearchesOfTheTurn(t *testing.T) {
	p := newProvider(t,
		ok(message("msg_41", "tool_use", 10, searchCall("toolu_s3", "statistics"))),
		ok(message("msg_42", "end_turn", 10, `{"type":"text","text":"Done."}`)),
	)
	earlier := model.AssistantMessage("Found it.")
	earlier.SetDiscovery(model.Discovery{Searches: 1})
	req := request("Analyze.")
	req.Messages = append(req.Messages, earlier, model.Message{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "toolu_x", Name: "records_lookup", Content: []byte(`{}`)}}}})
	req.Search.Cap = 1
	resp, err := clientSearch(p).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := resp.Messages[0].Discovery(); !d.Exhausted || d.Searches != 0 {
		t.Fatalf("discovery = %+v, want the search refused", d)
	}
}

func TestClientSearchLoopAfterExhaustionFails(t *testing.T) {
	p := newProvider(t,
		ok(message("msg_51", "tool_use", 10, searchCall("toolu_s1", "a"))),
		ok(message("msg_52", "tool_use", 10, searchCall("toolu_s2", "b"))),
		ok(message("msg_53", "tool_use", 10, searchCall("toolu_s3", "c"))),
	)
	req := request("Search.")
	req.Search.Cap = 1
	if _, err := clientSearch(p).Complete(context.Background(), req); !errors.Is(err, discovery.ErrSearchLoop) {
		t.Fatalf("err = %v, want ErrSearchLoop", err)
	}
	if n := len(p.Requests()); n != 3 {
		t.Fatalf("%d requests", n)
	}
}

func TestClientSearchStopsAtTheOutputBudget(t *testing.T) {
	p := newProvider(t, ok(message("msg_61", "tool_use", 1024, searchCall("toolu_s1", "export"))))
	resp, err := clientSearch(p).Complete(context.Background(), request("Export."))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Requests()) != 1 || resp.StopReason != model.StopMaxTokens {
		t.Fatalf("%d requests, stop %q: the invocation's MaxTokens bounds the search rounds", len(p.Requests()), resp.StopReason)
	}
	if rec, ok, _ := anthropic.RecordOf(resp.Messages[0]); !ok || len(rec.Results) != 1 {
		t.Fatalf("the answered search is not kept for replay: %+v", rec)
	}
}

func TestClientSearchNeedsSearchDocuments(t *testing.T) {
	p := newProvider(t)
	req := request("hi")
	req.Tools[1].Search = nil
	if _, err := clientSearch(p).Complete(context.Background(), req); err == nil || len(p.Requests()) != 0 {
		t.Fatalf("err = %v", err)
	}
}

// A model that keeps calling the client-side search tool with unusable input
// (neither counted nor refused) must not keep the invocation re-requesting
// until its output budget runs out.
func TestClientSearchWithUnusableInputDoesNotLoop(t *testing.T) {
	bad := func(id string) providerfake.Answer {
		return ok(message("msg_"+id, "tool_use", 1, `{"type":"tool_use","id":"`+id+`","name":"tool_search","input":{}}`))
	}
	var answers []providerfake.Answer
	for _, id := range []string{"b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9"} {
		answers = append(answers, bad(id))
	}
	p := newProvider(t, answers...)
	req := request("Search.")
	req.Search.Cap = 1
	_, err := clientSearch(p).Complete(context.Background(), req)
	if !errors.Is(err, discovery.ErrSearchLoop) {
		t.Fatalf("err = %v after %d requests, want ErrSearchLoop", err, len(p.Requests()))
	}
	if n := len(p.Requests()); n > 4 {
		t.Fatalf("%d requests: the search rounds of an invocation are bounded by the budget", n)
	}
}
