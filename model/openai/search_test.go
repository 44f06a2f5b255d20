package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

func TestSearchRoundThenBusinessCall(t *testing.T) {
	p, c := newProvider(t,
		exchange{golden: "search_then_call_1", body: response("resp_1", "completed", 40,
			reasoningItem("rs_1"), providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
		exchange{golden: "search_then_call_2", body: response("resp_2", "completed", 30,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`))},
	)
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}

	// The first request carries the eager tool and tool_search, and no
	// deferred name or description anywhere.
	first, _ := json.Marshal(p.Body(0))
	for _, hidden := range []string{"start_export", "analyze", "send_invoice", "CSV file", "invoice"} {
		if strings.Contains(string(first), hidden) {
			t.Errorf("first request reveals %q: %s", hidden, first)
		}
	}
	if !hasSearchTool(p.Body(0)) || !hasSearchTool(p.Body(1)) {
		t.Error("tool_search missing from a request")
	}
	// The second request's budget is what the first round left.
	equal(t, "second max_output_tokens", p.Body(1)["max_output_tokens"], float64(960))

	equal(t, "tool calls", resp.ToolCalls, []model.ToolCall{{ID: "call_1", Name: "start_export", Payload: json.RawMessage(`{"format":"csv"}`)}})
	equal(t, "stop reason", resp.StopReason, model.StopToolUse)
	equal(t, "usage", resp.Usage, model.Usage{InputTokens: 400, OutputTokens: 70, CacheReadTokens: 100})
	if len(resp.Messages) != 1 {
		t.Fatalf("%d messages, want 1", len(resp.Messages))
	}
	msg := resp.Messages[0]
	equal(t, "message tool calls", msg.ToolCalls(), resp.ToolCalls)
	d, ok := msg.Discovery()
	if !ok {
		t.Fatal("no discovery record")
	}
	equal(t, "discovery", d, model.Discovery{Tools: []tools.Ident{"records.start_export"}, Searches: 1})
	items := recordItems(t, msg)
	equal(t, "replay items", itemTypes(items), []string{"reasoning", "tool_search_call", "tool_search_output", "function_call"})
	equal(t, "function_call namespace", items[3]["namespace"], "start_export")
}

func TestTwoSearchRounds(t *testing.T) {
	p, c := newProvider(t,
		exchange{golden: "two_searches_1", body: response("resp_1", "completed", 40,
			providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
		exchange{golden: "two_searches_2", body: response("resp_2", "completed", 40,
			providerfake.OpenAIToolSearchCall("tsc_2", "call_search_2", "trends statistics"))},
		exchange{golden: "two_searches_3", body: response("resp_3", "completed", 20,
			providerfake.OpenAIMessage("msg_1", "Exporting, then analyzing."),
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`),
			providerfake.OpenAIFunctionCall("fc_2", "call_2", "analyze", "analyze", `{}`))},
	)
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1000, 960, 920} {
		equal(t, "max_output_tokens", p.Body(i)["max_output_tokens"], want)
	}
	equal(t, "text", resp.Text(), "Exporting, then analyzing.")
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Name != "start_export" || resp.ToolCalls[1].Name != "analyze" {
		t.Errorf("tool calls = %+v", resp.ToolCalls)
	}
	d, _ := resp.Messages[0].Discovery()
	equal(t, "discovery", d, model.Discovery{Tools: []tools.Ident{"records.start_export", "records.analyze"}, Searches: 2})
	equal(t, "replay items", itemTypes(recordItems(t, resp.Messages[0])),
		[]string{"tool_search_call", "tool_search_output", "tool_search_call", "tool_search_output", "message", "function_call", "function_call"})
}

func TestUndiscoveredCallIsReturnedAsOrdinaryCall(t *testing.T) {
	// The model calls a deferred tool it never searched for: the adapter
	// passes the call on (runtime admission refuses it) and records no
	// discovery.
	_, c := newProvider(t,
		exchange{golden: "undiscovered_call", body: response("resp_1", "completed", 12,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "analyze", "", `{"from":"2026-01-01"}`))},
	)
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "tool calls", resp.ToolCalls, []model.ToolCall{{ID: "call_1", Name: "analyze", Payload: json.RawMessage(`{"from":"2026-01-01"}`)}})
	if _, ok := resp.Messages[0].Discovery(); ok {
		t.Error("an undiscovered call produced a discovery record")
	}
	if got := model.DiscoveredTools(resp.Messages); len(got) != 0 {
		t.Errorf("discovered tools = %v, want none", got)
	}
}

func TestSearchAnswersRankedMatchesNotYetLoaded(t *testing.T) {
	// A search by exact wire name loads that tool; searching it again
	// answers nothing new.
	p, c := newProvider(t,
		exchange{body: response("resp_1", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "send_invoice"))},
		exchange{body: response("resp_2", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_2", "call_search_2", "send_invoice"))},
		exchange{body: response("resp_3", "completed", 10, providerfake.OpenAIMessage("msg_1", "Done."))},
	)
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	input := p.Body(2)["input"].([]any)
	var outputs [][]any
	for _, it := range input {
		if m := it.(map[string]any); m["type"] == "tool_search_output" {
			outputs = append(outputs, m["tools"].([]any))
		}
	}
	if len(outputs) != 2 || len(outputs[0]) == 0 || outputs[0][0].(map[string]any)["name"] != "send_invoice" || len(outputs[1]) != 0 {
		t.Errorf("search outputs = %v", outputs)
	}
	d, _ := resp.Messages[0].Discovery()
	equal(t, "discovery", d, model.Discovery{Tools: []tools.Ident{"billing.send_invoice"}, Searches: 2})
}
