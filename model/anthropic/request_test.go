package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
)

// endTurn is a plain final answer.
var endTurn = ok(message("msg_q", "end_turn", 5, `{"type":"text","text":"ok"}`))

func TestMaxTokensIsRequired(t *testing.T) {
	p := newProvider(t)
	req := request("hi")
	req.MaxTokens = 0
	if _, err := p.client().Complete(context.Background(), req); !errors.Is(err, anthropic.ErrMaxTokensRequired) {
		t.Fatalf("err = %v", err)
	}
	if len(p.Requests()) != 0 {
		t.Fatal("a request was sent")
	}
}

func TestModelComesFromTheRequestTheClassMapOrTheDefault(t *testing.T) {
	p := newProvider(t, endTurn, endTurn, endTurn)
	c := p.client(anthropic.WithClassModel(model.ModelClassSmall, "claude-haiku-4-5"))
	for _, tc := range []struct {
		model string
		class model.ModelClass
		want  string
	}{{"claude-opus-4-5", "", "claude-opus-4-5"}, {"", model.ModelClassSmall, "claude-haiku-4-5"}, {"", model.ModelClassHighReasoning, testModel}} {
		req := request("hi")
		req.Model, req.Class = tc.model, tc.class
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		providerfake.AssertJSON(t, "model", field(t, p.Request(len(p.Requests())-1).Body, "model"), `"`+tc.want+`"`)
	}
	bare, err := anthropic.New(anthropic.WithBaseURL(p.URL()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Complete(context.Background(), request("hi")); !errors.Is(err, model.ErrNoModel) {
		t.Fatalf("no model: err = %v", err)
	}
}

func TestTranscriptMapsToMessagesWithMergedToolResults(t *testing.T) {
	p := newProvider(t, endTurn)
	result := func(id, content string, isErr bool) model.Message {
		return model.Message{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: id, Name: "records_lookup", Content: json.RawMessage(content), IsError: isErr}}}}
	}
	calls := model.Message{Role: model.RoleAssistant, Parts: []model.Part{
		model.Text("Looking both up."),
		{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "toolu_a", Name: "records_lookup", Payload: json.RawMessage(`{"id":"a"}`)}},
		{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "toolu_b", Name: "records_lookup", Payload: json.RawMessage(`{"id":"b"}`)}},
	}}
	req := request("")
	req.Messages = []model.Message{
		model.SystemMessage("Answer briefly."),
		model.UserMessage("Look up a and b."),
		calls,
		result("toolu_a", `{"id":"a","state":"open"}`, false),
		result("toolu_b", `"not found"`, true),
		model.UserMessage("Reminder: cite ids."),
	}
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := p.Request(0).Body
	providerfake.AssertJSON(t, "system", field(t, body, "system"), `[{"type":"text","text":"You manage records."},{"type":"text","text":"Answer briefly."}]`)
	providerfake.AssertJSON(t, "messages", field(t, body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Look up a and b."}]},
	  {"role":"assistant","content":[{"type":"text","text":"Looking both up."},
	    {"type":"tool_use","id":"toolu_a","name":"records_lookup","input":{"id":"a"}},
	    {"type":"tool_use","id":"toolu_b","name":"records_lookup","input":{"id":"b"}}]},
	  {"role":"user","content":[
	    {"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"{\"id\":\"a\",\"state\":\"open\"}"}]},
	    {"type":"tool_result","tool_use_id":"toolu_b","is_error":true,"content":[{"type":"text","text":"not found"}]},
	    {"type":"text","text":"Reminder: cite ids."}]}]`)
}

func TestToolChoiceMapping(t *testing.T) {
	for _, tc := range []struct {
		choice model.ToolChoice
		want   string
	}{
		{model.ToolChoice{}, ``},
		{model.ToolChoice{Mode: model.ToolChoiceNone}, `{"type":"none"}`},
		{model.ToolChoice{Mode: model.ToolChoiceRequired}, `{"type":"any"}`},
		{model.ToolChoice{Mode: model.ToolChoiceTool, Name: "records_lookup"}, `{"type":"tool","name":"records_lookup"}`},
	} {
		p := newProvider(t, endTurn)
		req := request("hi")
		req.ToolChoice = tc.choice
		if _, err := p.client().Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		got := field(t, p.Request(0).Body, "tool_choice")
		if tc.want == "" {
			if got != nil {
				t.Fatalf("auto: tool_choice %s sent", got)
			}
			continue
		}
		providerfake.AssertJSON(t, string(tc.choice.Mode), got, tc.want)
	}
	p := newProvider(t)
	req := request("hi")
	req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "nope"}
	if _, err := p.client().Complete(context.Background(), req); err == nil {
		t.Fatal("forcing an undefined tool was accepted")
	}
}

func TestCacheCheckpointsPlaceCacheControl(t *testing.T) {
	p := newProvider(t, endTurn, endTurn)
	req := request("hi")
	req.Cache = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := p.Request(0).Body
	providerfake.AssertJSON(t, "system", field(t, body, "system"), `[{"type":"text","text":"You manage records.","cache_control":{"type":"ephemeral"}}]`)
	providerfake.AssertJSON(t, "tools", field(t, body, "tools"), toolsOf(`{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25","cache_control":{"type":"ephemeral"}}`))

	req.Tools = req.Tools[:1]
	req.Cache = model.CacheCheckpoints{AfterTools: true}
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body = p.Request(1).Body
	providerfake.AssertJSON(t, "last tool", field(t, body, "tools"), `[{"name":"records_lookup","description":"Fetch one record by id.","input_schema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"cache_control":{"type":"ephemeral"}}]`)
	providerfake.AssertJSON(t, "system without checkpoint", field(t, body, "system"), `[{"type":"text","text":"You manage records."}]`)
}

func TestDeclaredExampleIsSentAsInputExamples(t *testing.T) {
	p := newProvider(t, endTurn)
	req := request("hi")
	req.Tools = req.Tools[:1]
	req.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"example":{"id":"rec_42"}}`)
	req.Tools[0].Examples = []json.RawMessage{json.RawMessage(`{"id":"rec_42"}`)}
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := p.Request(0).Body
	providerfake.AssertJSON(t, "tools", field(t, body, "tools"), `[{"name":"records_lookup","description":"Fetch one record by id.",
	  "input_schema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},
	  "input_examples":[{"id":"rec_42"}]}]`)
	if got := p.Request(0).Header.Get("anthropic-beta"); got != "" {
		t.Fatalf("anthropic-beta = %q: input_examples is a GA field of the SDK's ToolParam", got)
	}

	req.Tools[0].Examples = []json.RawMessage{json.RawMessage(`"rec_42"`)}
	if _, err := p.client().Complete(context.Background(), req); err == nil {
		t.Fatal("a non-object example was accepted")
	}
}

func TestBetaHeaderIsSentOnlyWhenConfigured(t *testing.T) {
	p := newProvider(t, endTurn)
	c := p.client(anthropic.WithBetas("advanced-tool-use-2025-11-20", "context-1m-2025-08-07"))
	if _, err := c.Complete(context.Background(), request("hi")); err != nil {
		t.Fatal(err)
	}
	if got := p.Request(0).Header.Values("anthropic-beta"); len(got) != 1 || got[0] != "advanced-tool-use-2025-11-20,context-1m-2025-08-07" {
		t.Fatalf("anthropic-beta = %q", got)
	}
}

func TestPortableModeWithDeferredToolsIsRefused(t *testing.T) {
	p := newProvider(t)
	req := request("hi")
	req.Search.Mode = model.SearchPortable
	if _, err := p.client().Complete(context.Background(), req); !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("err = %v", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent, want none", n)
	}
}

func TestSupportsSearchIsNativeHostedOrClientSide(t *testing.T) {
	p := newProvider(t)
	for _, v := range []anthropic.SearchVariant{anthropic.SearchBM25, anthropic.SearchRegex, anthropic.SearchClient} {
		if err := p.client(anthropic.WithSearch(v)).SupportsSearch(model.SearchSettings{}); err != nil {
			t.Errorf("%s: native: %v", v, err)
		}
	}
	c := p.client()
	if err := c.SupportsSearch(model.SearchSettings{Mode: model.SearchPortable}); !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "portable.Wrap") {
		t.Fatalf("portable: err = %v, want ErrToolSearchUnsupported naming portable.Wrap", err)
	}
	if err := c.SupportsSearch(model.SearchSettings{ToolName: "find tools"}); err == nil || !strings.Contains(err.Error(), "must match") {
		t.Fatalf("bad tool name: err = %v", err)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, opts := range [][]anthropic.Option{
		{anthropic.WithSearch(anthropic.SearchVariant(9))},
		{anthropic.WithClientSearchToolName("tool search")},
		{anthropic.WithDiscovery(discovery.Settings{Limit: -1})},
		{anthropic.WithDiscovery(discovery.Settings{MinRelativeScore: 1.5})},
		{anthropic.WithMaxRetries(-1)},
		{anthropic.WithClassModel(model.ModelClassSmall, "")},
	} {
		if _, err := anthropic.New(opts...); err == nil || !strings.HasPrefix(err.Error(), "anthropic: ") {
			t.Fatalf("err = %v", err)
		}
	}
}

func TestSearchInstructionNamesTheSearchTheModelHas(t *testing.T) {
	hosted, err := anthropic.New(anthropic.WithAPIKey("k"))
	if err != nil {
		t.Fatal(err)
	}
	if got := hosted.SearchInstruction(model.SearchSettings{}); got != "Search for '%s' with the tool search tool" {
		t.Errorf("hosted: %q", got)
	}
	client, err := anthropic.New(anthropic.WithAPIKey("k"), anthropic.WithSearch(anthropic.SearchClient))
	if err != nil {
		t.Fatal(err)
	}
	if got := client.SearchInstruction(model.SearchSettings{}); got != "Call tool_search(query='%s') to discover it" {
		t.Errorf("client-side: %q", got)
	}
}

// Anthropic docs, "Tool search tool", Error handling: "The tool search tool
// is not compatible with tool use examples. If you need to provide examples
// of tool usage, use standard tool calling without tool search." A request
// that carries a search tool keeps the declared example in the schema
// instead of sending input_examples.
func TestDeclaredExampleStaysInTheSchemaWhenTheRequestCarriesToolSearch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client func(*provider) *anthropic.Client
	}{
		{"hosted", func(p *provider) *anthropic.Client { return p.client() }},
		{"client-side", func(p *provider) *anthropic.Client { return clientSearch(p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, endTurn)
			req := request("hi")
			req.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"example":{"id":"rec_42"}}`)
			req.Tools[0].Examples = []json.RawMessage{json.RawMessage(`{"id":"rec_42"}`)}
			if _, err := tc.client(p).Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			var sent []map[string]json.RawMessage
			if err := json.Unmarshal(field(t, p.Request(0).Body, "tools"), &sent); err != nil {
				t.Fatal(err)
			}
			for _, tool := range sent {
				if _, ok := tool["input_examples"]; ok {
					t.Fatalf("input_examples sent next to a tool search tool: %s", tool["input_examples"])
				}
			}
			providerfake.AssertJSON(t, "schema keeps its example", sent[0]["input_schema"], `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"example":{"id":"rec_42"}}`)
		})
	}
}

// Anthropic docs, "Define tools" / "Handle tool calls": "In the user message
// containing tool results, tool_result blocks must come FIRST in the content
// array. Any text must come AFTER all tool results."
func TestToolResultsComeFirstInAMergedUserMessage(t *testing.T) {
	p := newProvider(t, endTurn)
	req := request("")
	req.Messages = []model.Message{
		model.UserMessage("Look up a."),
		{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "toolu_a", Name: "records_lookup", Payload: json.RawMessage(`{"id":"a"}`)}}}},
		model.UserMessage("Also, be brief."),
		{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "toolu_a", Name: "records_lookup", Content: json.RawMessage(`"open"`)}}}},
	}
	if _, err := p.client().Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "messages", field(t, p.Request(0).Body, "messages"), `[
	  {"role":"user","content":[{"type":"text","text":"Look up a."}]},
	  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"records_lookup","input":{"id":"a"}}]},
	  {"role":"user","content":[
	    {"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"open"}]},
	    {"type":"text","text":"Also, be brief."}]}]`)
}
