package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

// storedTranscript runs a search round and a business call, then returns
// the turn as storage keeps it: user message, the adapter's assistant
// message and the tool result, through JSON.
func storedTranscript(t *testing.T) []model.Message {
	t.Helper()
	_, c := newProvider(t,
		exchange{body: response("resp_1", "completed", 40,
			reasoningItem("rs_1"), providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
		exchange{body: response("resp_2", "completed", 30,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`))},
	)
	req := baseRequest()
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return roundTrip(t, req.Messages, append(resp.Messages, toolResult("call_1", "start_export", `{"export_id":"e1"}`))...)
}

func TestReplayStoredTranscript(t *testing.T) {
	stored := storedTranscript(t)
	p, c := newProvider(t, exchange{golden: "replay_same", body: response("resp_3", "completed", 8, providerfake.OpenAIMessage("msg_1", "Export e1 started."))})
	req := baseRequest()
	req.Messages = stored
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "text", resp.Text(), "Export e1 started.")
	// The search call and output come back in place, the loaded namespace
	// intact, the call with the namespace the provider returned.
	var types []string
	for _, it := range p.Body(0)["input"].([]any) {
		m := it.(map[string]any)
		ty, _ := m["type"].(string)
		if ty == "" {
			ty = "message:" + m["role"].(string)
		}
		types = append(types, ty)
	}
	equal(t, "input items", types, []string{"message:user", "reasoning", "tool_search_call", "tool_search_output", "function_call", "function_call_output"})
	if outs := searchOutputs(p.Body(0)); len(outs) != 1 || len(outs[0]) != 1 {
		t.Errorf("replayed search outputs = %v", outs)
	}
	if _, ok := resp.Messages[0].Discovery(); ok {
		t.Error("a replay without search wrote a discovery record")
	}
}

func TestReplayDropsChangedDefinitionsFromTheRequestOnly(t *testing.T) {
	stored := storedTranscript(t)
	before, _ := json.Marshal(stored)

	// start_export's schema changed since the search loaded it.
	changed := catalog()
	changed[1].InputSchema = json.RawMessage(`{"type":"object","properties":{"format":{"type":"string","enum":["csv","xlsx"]}},"required":["format"]}`)
	p, c := newProvider(t, exchange{golden: "replay_changed", body: response("resp_3", "completed", 8, providerfake.OpenAIMessage("msg_1", "OK."))})
	req := baseRequest()
	req.Tools = changed
	req.Messages = stored
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if outs := searchOutputs(p.Body(0)); len(outs) != 1 || outs[0] == nil || len(outs[0]) != 0 {
		t.Errorf("replayed search outputs = %v, want the changed namespace dropped", outs)
	}
	// The tool stays discovered (its record is in the transcript): it is
	// advertised as a function with its new definition, not searched again.
	equal(t, "function tools", functionTools(p.Body(0)), []string{"lookup", "start_export"})
	after, _ := json.Marshal(stored)
	if !bytes.Equal(before, after) {
		t.Error("replay changed the stored transcript")
	}

	// A removed definition is dropped the same way, and advertised nowhere.
	removed := append(catalog()[:1], catalog()[2:]...)
	p2, c2 := newProvider(t, exchange{body: response("resp_4", "completed", 8, providerfake.OpenAIMessage("msg_2", "OK."))})
	req2 := baseRequest()
	req2.Tools = removed
	req2.Messages = stored
	if _, err := c2.Complete(context.Background(), req2); err != nil {
		t.Fatal(err)
	}
	if outs := searchOutputs(p2.Body(0)); len(outs) != 1 || len(outs[0]) != 0 {
		t.Errorf("replayed search outputs = %v, want the removed namespace dropped", outs)
	}
	equal(t, "function tools", functionTools(p2.Body(0)), []string{"lookup"})
}

// functionTools returns the names of a request's function tools.
func functionTools(body map[string]any) []string {
	var out []string
	for _, t := range body["tools"].([]any) {
		if m := t.(map[string]any); m["type"] == "function" {
			out = append(out, m["name"].(string))
		}
	}
	return out
}

func TestReplayedToolsAreNotLoadedTwice(t *testing.T) {
	// start_export is loaded by the replayed history: a new search for it
	// answers the other matches only.
	stored := storedTranscript(t)
	p, c := newProvider(t,
		exchange{body: response("resp_3", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_2", "call_search_2", "start_export"))},
		exchange{body: response("resp_4", "completed", 10, providerfake.OpenAIMessage("msg_1", "OK."))},
	)
	req := baseRequest()
	req.Messages = stored
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	outs := searchOutputs(p.Body(1))
	if len(outs) != 2 {
		t.Fatalf("search outputs = %v", outs)
	}
	for _, e := range outs[1] {
		if e.(map[string]any)["name"] == "start_export" {
			t.Error("a loaded tool was loaded again")
		}
	}
}
