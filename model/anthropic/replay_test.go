package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
)

// storedTranscript runs a hosted search round then a business call, appends
// the call's result and returns the transcript after a JSON round trip, as
// storage would give it back.
func storedTranscript(t *testing.T) []model.Message {
	t.Helper()
	p := newProvider(t, ok(hostedRound))
	req := request("Export the orders table as CSV.")
	resp, err := p.client().Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	transcript := append(req.Messages, resp.Messages...)
	transcript = append(transcript, model.Message{Role: model.RoleTool, Parts: []model.Part{{
		Kind:       model.PartToolResult,
		ToolResult: &model.ToolResult{CallID: "toolu_01", Name: "records_export", Content: json.RawMessage(`{"export_id":"exp_1"}`)},
	}}})
	raw, err := json.Marshal(transcript)
	if err != nil {
		t.Fatal(err)
	}
	var stored []model.Message
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	return stored
}

func TestReplayOfStoredTranscriptSendsSearchBlocksInPlace(t *testing.T) {
	stored := storedTranscript(t)
	if got := model.DiscoveredTools(stored); len(got) != 1 || got[0] != "records.export" {
		t.Fatalf("discovered after storage = %v", got)
	}
	p := newProvider(t, ok(message("msg_r1", "end_turn", 10, `{"type":"text","text":"Export exp_1 started."}`)))
	req := request("")
	req.Messages = stored
	resp, err := p.client().Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "replayed messages", field(t, p.Request(0).Body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Export the orders table as CSV."}]},
	  {"role":"assistant","content":[{"type":"text","text":"Let me find an export tool."},`+searchUse+`,`+searchHit+`,
	    {"type":"tool_use","id":"toolu_01","name":"records_export","input":{"table":"orders","format":"csv"}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"{\"export_id\":\"exp_1\"}"}]}]}]`)
	providerfake.AssertJSON(t, "tools", field(t, p.Request(0).Body, "tools"), toolsOf(bm25Tool))
	if resp.Text() != "Export exp_1 started." {
		t.Fatalf("text = %q", resp.Text())
	}
}

func TestReplayRefusesAChangedDefinitionUnderAReferencedName(t *testing.T) {
	stored := storedTranscript(t)
	p := newProvider(t)
	req := request("")
	req.Messages = stored
	req.Tools[1].Description = "Export records (now asynchronous)."
	_, err := p.client().Complete(context.Background(), req)
	var de *anthropic.DefinitionChangedError
	if !errors.As(err, &de) || !errors.Is(err, anthropic.ErrDefinitionChanged) {
		t.Fatalf("err = %v, want a *DefinitionChangedError", err)
	}
	if de.Name != "records_export" || de.Message != 1 || de.Removed {
		t.Fatalf("error = %+v", de)
	}
	if want := `anthropic: tool "records_export" changed since the tool search of message 1 loaded it; the Messages API expands tool references with the current definitions, so this history cannot be replayed: start a new conversation, or compact the history deliberately so that no message references the old definition`; err.Error() != want {
		t.Fatalf("message = %q", err)
	}
	if len(p.Requests()) != 0 {
		t.Fatal("a request was sent")
	}

	req.Tools = catalog()
	req.Tools[1].InputSchema = json.RawMessage(`{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]}`)
	if _, err := p.client().Complete(context.Background(), req); !errors.As(err, &de) || de.Removed {
		t.Fatalf("a changed schema: err = %v", err)
	}

	req.Tools = append(catalog()[:1], catalog()[2])
	if _, err := p.client().Complete(context.Background(), req); !errors.As(err, &de) || !de.Removed {
		t.Fatalf("a removed definition: err = %v", err)
	}
}

func TestReplayAcceptsChangesToToolsNoSearchReferenced(t *testing.T) {
	p := newProvider(t, ok(message("msg_r2", "end_turn", 5, `{"type":"text","text":"ok"}`)))
	req := request("")
	req.Messages = storedTranscript(t)
	req.Tools[2].Description = "Compute statistics (v2)."
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
}

func TestReplayPutsClientSearchResultsBeforeTheBusinessResults(t *testing.T) {
	// One response both searches and calls a tool: the search is answered
	// within the invocation, the call goes to the planner, and the next
	// request opens the user message with the search result.
	p := newProvider(t,
		ok(message("msg_m1", "tool_use", 10, searchCall("toolu_s1", "export records csv"), `{"type":"tool_use","id":"toolu_l1","name":"records_lookup","input":{"id":"r1"}}`)),
		ok(message("msg_m2", "end_turn", 10, `{"type":"text","text":"Done."}`)),
	)
	c := clientSearch(p)
	req := request("Look up r1 and find an export tool.")
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Requests()) != 1 || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "records_lookup" {
		t.Fatalf("%d requests, calls %+v", len(p.Requests()), resp.ToolCalls)
	}
	req.Messages = append(req.Messages, resp.Messages...)
	req.Messages = append(req.Messages, model.Message{Role: model.RoleTool, Parts: []model.Part{{
		Kind:       model.PartToolResult,
		ToolResult: &model.ToolResult{CallID: "toolu_l1", Name: "records_lookup", Content: json.RawMessage(`"r1: open"`)},
	}}})
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "messages", field(t, p.Request(1).Body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Look up r1 and find an export tool."}]},
	  {"role":"assistant","content":[`+searchCall("toolu_s1", "export records csv")+`,{"type":"tool_use","id":"toolu_l1","name":"records_lookup","input":{"id":"r1"}}]},
	  {"role":"user","content":[
	    {"type":"tool_result","tool_use_id":"toolu_s1","content":[{"type":"tool_reference","tool_name":"records_export"}]},
	    {"type":"tool_result","tool_use_id":"toolu_l1","content":[{"type":"text","text":"r1: open"}]}]}]`)
}

func TestReplayKeepsTheSearchToolWhileHistoryHoldsSearches(t *testing.T) {
	// The referenced tool is now advertised inline and nothing is deferred:
	// the history's server_tool_use still needs its tool in the request.
	p := newProvider(t, ok(message("msg_r3", "end_turn", 5, `{"type":"text","text":"ok"}`)))
	req := request("")
	req.Messages = storedTranscript(t)
	for i := range req.Tools {
		req.Tools[i].Deferred = false
	}
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var sent []map[string]any
	if err := json.Unmarshal(field(t, p.Request(0).Body, "tools"), &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent) != 4 || sent[3]["type"] != "tool_search_tool_bm25_20251119" || sent[1]["defer_loading"] != nil {
		t.Fatalf("tools = %v", sent)
	}
}

// A response's empty text block is not replayed (the API refuses empty text
// blocks), but the search blocks after it must keep their place relative to
// the business call.
func TestReplayKeepsSearchBlocksInPlaceAfterAnEmptyTextBlock(t *testing.T) {
	round := message("msg_e1", "tool_use", 80, `{"type":"text","text":""}`, searchUse, searchHit, exportUse)
	p := newProvider(t, ok(round), endTurn)
	c := p.client()
	req := request("Export the orders table as CSV.")
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, resp.Messages...)
	req.Messages = append(req.Messages, model.Message{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "toolu_01", Name: "records_export", Content: json.RawMessage(`{"export_id":"exp_1"}`)}}}})
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "replayed messages", field(t, p.Request(1).Body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Export the orders table as CSV."}]},
	  {"role":"assistant","content":[`+searchUse+`,`+searchHit+`,
	    {"type":"tool_use","id":"toolu_01","name":"records_export","input":{"table":"orders","format":"csv"}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"{\"export_id\":\"exp_1\"}"}]}]}]`)
}
