package model

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/quiver-go/quiver/search"
)

func sampleMessage() Message {
	return Message{
		Role: RoleAssistant,
		Parts: []Part{
			Text("Looking it up."),
			{Kind: PartToolCall, ToolCall: &ToolCall{ID: "c1", Name: "lookup", Ident: "records.lookup", Payload: json.RawMessage(`{"q":"x"}`)}},
		},
		Meta: map[string]json.RawMessage{"openai": json.RawMessage(`{"search_rounds":1}`)},
	}
}

func TestMessageRoundTripsThroughJSONWithItsMetadata(t *testing.T) {
	m := sampleMessage()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Message
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, back) {
		t.Fatalf("round trip changed the message:\n%+v\n%+v", m, back)
	}
}

func TestMessageCloneIsDeep(t *testing.T) {
	m := sampleMessage()
	c := m.Clone()
	c.Parts[1].ToolCall.Payload[2] = 'Q'
	c.Meta["openai"][1] = 'X'
	c.Parts[0].Text = "changed"
	if string(m.Parts[1].ToolCall.Payload) != `{"q":"x"}` || string(m.Meta["openai"]) != `{"search_rounds":1}` || m.Parts[0].Text != "Looking it up." {
		t.Fatalf("mutating a clone changed the original: %+v", m)
	}
	if got := m.ToolCalls(); len(got) != 1 || got[0].Name != "lookup" {
		t.Fatalf("ToolCalls() = %+v", got)
	}
	if m.TextContent() != "Looking it up." {
		t.Fatalf("TextContent() = %q", m.TextContent())
	}
}

func TestToolDefinitionCloneIsDeep(t *testing.T) {
	doc := search.NewDocument(search.Source{Name: "records.lookup", Description: "Find records"})
	d := ToolDefinition{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`), Deferred: true, Search: &doc, Examples: []json.RawMessage{json.RawMessage(`{"q":"a"}`)}}
	c := d.Clone()
	c.InputSchema[2] = 'X'
	c.Examples[0][2] = 'X'
	c.Search.Aliases = append(c.Search.Aliases, "changed")
	c.Search.Fields[search.FieldDescription].Terms[0].Count = 99
	if string(d.InputSchema) != `{"type":"object"}` || string(d.Examples[0]) != `{"q":"a"}` || len(d.Search.Aliases) != 0 || d.Search.Fields[search.FieldDescription].Terms[0].Count != 1 {
		t.Fatalf("mutating a clone changed the original: %+v", d)
	}
}

func TestUsageAdd(t *testing.T) {
	got := Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4}.Add(Usage{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 30, CacheWriteTokens: 40})
	if got != (Usage{InputTokens: 11, OutputTokens: 22, CacheReadTokens: 33, CacheWriteTokens: 44}) {
		t.Fatalf("Add = %+v", got)
	}
}

func TestAnAnswerWithinATurnDoesNotResetItsSearchBudget(t *testing.T) {
	searched := Message{Role: RoleTool}
	searched.SetDiscovery(Discovery{Searches: 2})
	answer := UserMessage("Lyon")
	answer.Meta = map[string]json.RawMessage{ContinuesTurnMetaKey: json.RawMessage(`true`)}
	msgs := []Message{UserMessage("book a hotel"), searched, answer}
	if got := SearchesThisTurn(msgs); got != 2 {
		t.Fatalf("SearchesThisTurn = %d, want the 2 searches before the clarification", got)
	}
	if got := SearchesThisTurn(append(msgs, UserMessage("new question"))); got != 0 {
		t.Fatalf("a new user turn kept %d searches", got)
	}
}

func TestRecordForcedToolAdmitsAForcedDeferredTool(t *testing.T) {
	req := &Request{
		Tools:      []ToolDefinition{{Name: "startExport", Ident: "ws.startExport", Deferred: true}, {Name: "openTable", Ident: "ws.openTable"}},
		ToolChoice: ToolChoice{Mode: ToolChoiceTool, Name: "startExport"},
	}
	resp := &Response{Messages: []Message{AssistantMessage("calling")}}
	RecordForcedTool(req, resp)
	if got := DiscoveredTools(resp.Messages); len(got) != 1 || got[0] != "ws.startExport" {
		t.Fatalf("discovered %v", got)
	}
	req.ToolChoice.Name = "openTable"
	resp = &Response{Messages: []Message{AssistantMessage("calling")}}
	RecordForcedTool(req, resp)
	if _, ok := resp.Messages[0].Discovery(); ok {
		t.Fatal("an inline forced tool got a discovery record")
	}
}
