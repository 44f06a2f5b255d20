package openai

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// searchOutputs returns the tools lists of a request's tool_search_output
// items.
func searchOutputs(body map[string]any) [][]any {
	var out [][]any
	for _, it := range body["input"].([]any) {
		if m := it.(map[string]any); m["type"] == "tool_search_output" {
			ts, _ := m["tools"].([]any)
			out = append(out, ts)
		}
	}
	return out
}

// answersTold returns the content of the developer messages of a request's
// input: the search answers the tool_search_output items cannot carry.
func answersTold(body map[string]any) []string {
	var out []string
	for _, it := range body["input"].([]any) {
		if m := it.(map[string]any); m["type"] == "message" && m["role"] == "developer" {
			out = append(out, m["content"].(string))
		}
	}
	return out
}

// inputTypes lists the input items of a request by type, messages as
// "message:<role>".
func inputTypes(body map[string]any) []string {
	var types []string
	for _, it := range body["input"].([]any) {
		m := it.(map[string]any)
		ty, _ := m["type"].(string)
		if ty == "" || ty == "message" {
			ty = "message:" + m["role"].(string)
		}
		types = append(types, ty)
	}
	return types
}

func TestSearchBudgetExhausted(t *testing.T) {
	p, c := newProvider(t,
		exchange{body: response("resp_1", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
		exchange{body: response("resp_2", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_2", "call_search_2", "invoice"))},
		exchange{golden: "budget_exhausted_3", body: response("resp_3", "completed", 10,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`))},
	)
	req := baseRequest()
	req.Search.Cap = 1
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// The search past the budget loads nothing (the output item has no
	// text field)…
	outs := searchOutputs(p.Body(2))
	if len(outs) != 2 || len(outs[0]) != 1 || outs[1] == nil || len(outs[1]) != 0 {
		t.Errorf("search outputs = %v, want one tool then an empty list", outs)
	}
	// …and the model is told why, in a developer message right after it.
	equal(t, "input items", inputTypes(p.Body(2)), []string{"message:user",
		"tool_search_call", "tool_search_output", "tool_search_call", "tool_search_output", "message:developer"})
	equal(t, "answers told", answersTold(p.Body(2)), []string{`{"error":"search-budget-exhausted","budgetCap":1}`})
	// tool_search stays declared while the input holds its calls.
	if !hasSearchTool(p.Body(0)) || !hasSearchTool(p.Body(1)) || !hasSearchTool(p.Body(2)) {
		t.Errorf("tool_search offered: %v, %v, %v", hasSearchTool(p.Body(0)), hasSearchTool(p.Body(1)), hasSearchTool(p.Body(2)))
	}
	d, _ := resp.Messages[0].Discovery()
	equal(t, "discovery", d, model.Discovery{Tools: []tools.Ident{"records.start_export"}, Searches: 1, Exhausted: true})
	equal(t, "stop reason", resp.StopReason, model.StopToolUse)
	equal(t, "replay items", itemTypes(recordItems(t, resp.Messages[0])),
		[]string{"tool_search_call", "tool_search_output", "tool_search_call", "tool_search_output", "message", "function_call"})

	// The next invocation of the same turn replays the refusal in place and
	// refuses a new search the same way: the history still references
	// tool_search, so it stays declared.
	p2, c2 := newProvider(t,
		exchange{body: response("resp_4", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_3", "call_search_3", "analyze"))},
		exchange{body: response("resp_5", "completed", 10, providerfake.OpenAIMessage("msg_2", "Still only export."))},
	)
	next := baseRequest()
	next.Search.Cap = 1
	next.Messages = roundTrip(t, next.Messages, append(resp.Messages, toolResult("call_1", "start_export", `{"export_id":"e1"}`))...)
	resp2, err := c2.Complete(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if !hasSearchTool(p2.Body(0)) {
		t.Error("tool_search left out while the history holds its calls")
	}
	equal(t, "answers told", answersTold(p2.Body(1)), []string{
		`{"error":"search-budget-exhausted","budgetCap":1}`, `{"error":"search-budget-exhausted","budgetCap":1}`})
	d2, _ := resp2.Messages[0].Discovery()
	equal(t, "discovery", d2, model.Discovery{Exhausted: true})

	// A new turn gets its budget back.
	p3, c3 := newProvider(t, exchange{body: response("resp_6", "completed", 10, providerfake.OpenAIMessage("msg_3", "Hello."))})
	turn := baseRequest()
	turn.Search.Cap = 1
	turn.Messages = append(roundTrip(t, turn.Messages, resp.Messages...), model.UserMessage("Now send an invoice."))
	if _, err := c3.Complete(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	if !hasSearchTool(p3.Body(0)) {
		t.Error("tool_search missing at the start of a new turn")
	}
}

func TestSearchBudgetCountsEarlierInvocationsOfTheTurn(t *testing.T) {
	// The turn already used its single search in an earlier invocation:
	// this invocation's first search is refused, told and recorded.
	earlier := model.Message{Role: model.RoleAssistant, Parts: []model.Part{}}
	earlier.SetDiscovery(model.Discovery{Tools: []tools.Ident{"records.analyze"}, Searches: 1})
	p, c := newProvider(t,
		exchange{body: response("resp_1", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
		exchange{body: response("resp_2", "completed", 10, providerfake.OpenAIMessage("msg_1", "No more searches."))},
	)
	req := baseRequest()
	req.Search.Cap = 1
	req.Messages = append(req.Messages, earlier)
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if outs := searchOutputs(p.Body(1)); len(outs) != 1 || len(outs[0]) != 0 {
		t.Errorf("search outputs = %v, want one empty list", outs)
	}
	equal(t, "answers told", answersTold(p.Body(1)), []string{`{"error":"search-budget-exhausted","budgetCap":1}`})
	if !hasSearchTool(p.Body(0)) || !hasSearchTool(p.Body(1)) {
		t.Error("tool_search must stay declared while the input holds its call")
	}
	d, _ := resp.Messages[0].Discovery()
	equal(t, "discovery", d, model.Discovery{Exhausted: true})
}

func TestSearchToolLeftOutOnceRefusedWithoutSearchCallsInTheInput(t *testing.T) {
	// Another adapter's search was refused earlier in the turn: no
	// tool_search call is in the input, so tool_search is not offered.
	p, c := newProvider(t, exchange{body: response("resp_1", "completed", 10, providerfake.OpenAIMessage("msg_1", "OK."))})
	req := baseRequest()
	req.Search.Cap = 1
	req.Discovery = &model.DiscoveryState{Searches: 1, Exhausted: true}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if hasSearchTool(p.Body(0)) {
		t.Error("tool_search offered after the turn's budget was refused")
	}
}

func TestOutputBudgetSpentStopsWithMaxTokens(t *testing.T) {
	// The search round spends 990 of 1000 output tokens: the search is
	// answered and recorded, but no further request fits the budget.
	_, c := newProvider(t,
		exchange{body: response("resp_1", "completed", 990, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
	)
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "stop reason", resp.StopReason, model.StopMaxTokens)
	equal(t, "tool calls", len(resp.ToolCalls), 0)
	equal(t, "replay items", itemTypes(recordItems(t, resp.Messages[0])), []string{"tool_search_call", "tool_search_output"})
	d, _ := resp.Messages[0].Discovery()
	equal(t, "discovery", d, model.Discovery{Tools: []tools.Ident{"records.start_export"}, Searches: 1})
}

func TestProviderTruncationIsMaxTokens(t *testing.T) {
	_, c := newProvider(t, exchange{body: response("resp_1", "incomplete", 1000, providerfake.OpenAIMessage("msg_1", "Partial"))})
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "stop reason", resp.StopReason, model.StopMaxTokens)
	equal(t, "text", resp.Text(), "Partial")

	// A completed search call in a truncated response is still answered,
	// so the stored items replay as a valid input.
	_, c2 := newProvider(t, exchange{body: response("resp_2", "incomplete", 1000, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))})
	resp2, err := c2.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "stop reason", resp2.StopReason, model.StopMaxTokens)
	equal(t, "replay items", itemTypes(recordItems(t, resp2.Messages[0])), []string{"tool_search_call", "tool_search_output"})
}

func TestSearchAndCallInOneResponse(t *testing.T) {
	// The model searches and calls an eager tool at once: the search is
	// answered and kept for replay, the call is returned, no re-request.
	_, c := newProvider(t, exchange{body: response("resp_1", "completed", 30,
		providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"),
		providerfake.OpenAIFunctionCall("fc_1", "call_1", "lookup", "", `{"id":"r1"}`))})
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "tool calls", resp.ToolCalls, []model.ToolCall{{ID: "call_1", Name: "lookup", Payload: json.RawMessage(`{"id":"r1"}`)}})
	equal(t, "replay items", itemTypes(recordItems(t, resp.Messages[0])), []string{"tool_search_call", "function_call", "tool_search_output"})
}

func TestDeferredToolsNeedPositiveMaxTokens(t *testing.T) {
	_, c := newProvider(t)
	req := baseRequest()
	req.MaxTokens = 0
	_, err := c.Complete(context.Background(), req)
	if !errors.Is(err, ErrMaxTokensRequired) {
		t.Fatalf("err = %v, want ErrMaxTokensRequired", err)
	}
}

// toolResult is a tool message answering one call.
func toolResult(callID, name, content string) model.Message {
	return model.Message{Role: model.RoleTool, Parts: []model.Part{{
		Kind:       model.PartToolResult,
		ToolResult: &model.ToolResult{CallID: callID, Name: name, Content: json.RawMessage(content)},
	}}}
}

// roundTrip returns msgs followed by more, through JSON as storage keeps
// them.
func roundTrip(t *testing.T, msgs []model.Message, more ...model.Message) []model.Message {
	t.Helper()
	raw, err := json.Marshal(append(model.CloneMessages(msgs), more...))
	if err != nil {
		t.Fatal(err)
	}
	var out []model.Message
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTruncatedSearchCallIsAnsweredSoTheTranscriptReplays(t *testing.T) {
	// The output budget runs out while the model writes a search call: the
	// provider returns it "incomplete", its arguments cut short. It is not
	// run or counted, but it is answered (no tools), so the stored items do
	// not hold a call without its output, which the next request would send.
	truncated := `{"type":"tool_search_call","id":"tsc_1","call_id":"call_search_1","execution":"client","status":"incomplete","arguments":{"query":"exp"}}`
	_, c := newProvider(t, exchange{body: response("resp_1", "incomplete", 1000, reasoningItem("rs_1"), truncated)})
	resp, err := c.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "stop reason", resp.StopReason, model.StopMaxTokens)
	items := recordItems(t, resp.Messages[0])
	equal(t, "replay items", itemTypes(items), []string{"reasoning", "tool_search_call", "tool_search_output"})
	if len(items) != 3 {
		return // reported above
	}
	if out := items[2]; out["call_id"] != "call_search_1" || out["tools"] == nil || len(out["tools"].([]any)) != 0 {
		t.Errorf("tool_search_output = %v, want the call's id and no tools", out)
	}
	if _, ok := resp.Messages[0].Discovery(); ok {
		t.Error("a search that was not run was recorded")
	}
}
