package compat

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

func TestReplayOfAStoredTranscriptSendsSearchRoundsAsOrdinaryMessages(t *testing.T) {
	// Invocation 1: search, then the business call.
	first := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		callsTool("call_b1", "startExport", `{"table":"orders","format":"csv"}`),
	)
	user := model.UserMessage("Export orders to CSV")
	resp, err := first.client().Complete(ctx(t), portableRequest(user))
	if err != nil {
		t.Fatal(err)
	}
	transcript := append([]model.Message{user}, resp.Messages...)
	transcript = append(transcript, toolResult("call_b1", "startExport", `{"export_id":"e1"}`))

	// Store and load the transcript.
	stored, err := json.Marshal(transcript)
	if err != nil {
		t.Fatal(err)
	}
	var loaded []model.Message
	if err := json.Unmarshal(stored, &loaded); err != nil {
		t.Fatal(err)
	}
	if got := model.DiscoveredTools(loaded); !slices.Equal(got, []tools.Ident{"ws.startExport"}) {
		t.Fatalf("after the round trip the transcript records %v", got)
	}

	// Invocation 2, on another server process: the replayed history.
	second := newProvider(t, replies("Export e1 is running."))
	out, err := second.client().Complete(ctx(t), portableRequest(loaded...))
	if err != nil {
		t.Fatal(err)
	}
	got := second.Request(0).Body
	providerfake.AssertJSON(t, "replayed request", got, body(
		[]string{systemWire, userMsg("Export orders to CSV"),
			callMsg("call_s1", "search_tools", `{"query":"export a table to csv"}`),
			toolMsg("call_s1", exportFound),
			callMsg("call_b1", "startExport", `{"table":"orders","format":"csv"}`),
			toolMsg("call_b1", `{"export_id":"e1"}`)},
		// The discovery recorded in the stored metadata is re-applied.
		toolsJSON(listTablesWire, runQueryWire, startExportWire, searchToolsWire),
		`"max_tokens":512`))
	for _, leak := range []string{"meta", model.DiscoveryMetaKey, "ws.startExport"} {
		if bytes.Contains(got, []byte(leak)) {
			t.Fatalf("the request leaks %q: %s", leak, got)
		}
	}
	if out.Text() != "Export e1 is running." || len(out.ToolCalls) != 0 || out.StopReason != model.StopEndTurn {
		t.Fatalf("response = %+v", out)
	}
}

func TestMetadataIsNeverSentAndStaysOnTheCallersMessages(t *testing.T) {
	p := newProvider(t, replies("Hello."))
	meta := map[string]json.RawMessage{"app.trace": json.RawMessage(`{"span":"s1"}`)}
	msg := model.UserMessage("Hi")
	msg.Meta = meta
	req := &model.Request{Messages: []model.Message{msg}}
	if _, err := p.client().Complete(ctx(t), req); err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "request", p.Request(0).Body, body([]string{userMsg("Hi")}, "", ""))
	if string(req.Messages[0].Meta["app.trace"]) != `{"span":"s1"}` {
		t.Fatalf("the caller's metadata changed: %v", req.Messages[0].Meta)
	}
}
