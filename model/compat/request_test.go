package compat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

func TestRequestMapsTheConversationOntoChatCompletionsJSON(t *testing.T) {
	p := newProvider(t, replies("Done."))
	assistant := model.Message{Role: model.RoleAssistant, Parts: []model.Part{
		model.Text("Let me check."),
		{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "c1", Name: "runQuery", Ident: "ws.runQuery", Payload: json.RawMessage(`{"sql":"select count(*) from orders"}`)}},
		{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "c2", Name: "listTables"}},
	}, Meta: map[string]json.RawMessage{"quiver.discovery": json.RawMessage(`{"searches":1}`)}}
	results := model.Message{Role: model.RoleTool, Parts: []model.Part{
		{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "c1", Name: "runQuery", Content: json.RawMessage(`{"count":42}`)}},
		{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "c2", Name: "listTables", Content: json.RawMessage(`{"error":"timeout"}`), IsError: true}},
	}}
	req := &model.Request{
		Model:  "llama3.1:8b",
		System: "You are DynoTable's assistant.",
		Messages: []model.Message{
			model.SystemMessage("Summary: the user works on the orders table."),
			model.UserMessage("How many orders?"),
			assistant,
			results,
			model.AssistantMessage("42 orders."),
			model.UserMessage("Count them again"),
		},
		Tools:      catalogTools()[:2],
		ToolChoice: model.ToolChoice{Mode: model.ToolChoiceTool, Name: "runQuery"},
		MaxTokens:  256,
	}
	if _, err := p.client().Complete(ctx(t), req); err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "request", p.Request(0).Body, `{
		"model": "llama3.1:8b",
		"messages": [
			{"role":"system","content":"You are DynoTable's assistant."},
			{"role":"system","content":"Summary: the user works on the orders table."},
			{"role":"user","content":"How many orders?"},
			{"role":"assistant","content":"Let me check.","tool_calls":[
				{"id":"c1","type":"function","function":{"name":"runQuery","arguments":"{\"sql\":\"select count(*) from orders\"}"}},
				{"id":"c2","type":"function","function":{"name":"listTables","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"c1","content":"{\"count\":42}"},
			{"role":"tool","tool_call_id":"c2","content":"{\"error\":\"timeout\"}"},
			{"role":"assistant","content":"42 orders."},
			{"role":"user","content":"Count them again"}
		],
		"tools": `+toolsJSON(listTablesWire, runQueryWire)+`,
		"tool_choice": {"type":"function","function":{"name":"runQuery"}},
		"max_tokens": 256
	}`)
}

func TestTokenCapAndToolChoiceFields(t *testing.T) {
	tools := catalogTools()[:2]
	cases := []struct {
		name  string
		opts  []Option
		req   model.Request
		extra string
	}{
		{"auto choice and no cap omit both", nil, model.Request{Tools: tools}, ""},
		{"max_tokens by default", nil, model.Request{Tools: tools, MaxTokens: 99}, `"max_tokens":99`},
		{"max_completion_tokens when chosen", []Option{WithTokenLimitField(FieldMaxCompletionTokens)}, model.Request{Tools: tools, MaxTokens: 99}, `"max_completion_tokens":99`},
		{"none", nil, model.Request{Tools: tools, ToolChoice: model.ToolChoice{Mode: model.ToolChoiceNone}}, `"tool_choice":"none"`},
		{"required", nil, model.Request{Tools: tools, ToolChoice: model.ToolChoice{Mode: model.ToolChoiceRequired}}, `"tool_choice":"required"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, replies("ok"))
			tc.req.Messages = []model.Message{model.UserMessage("hi")}
			if _, err := p.client(tc.opts...).Complete(ctx(t), &tc.req); err != nil {
				t.Fatal(err)
			}
			providerfake.AssertJSON(t, "request", p.Request(0).Body, body([]string{userMsg("hi")}, toolsJSON(listTablesWire, runQueryWire), tc.extra))
		})
	}
}

func TestMalformedRequestsFailBeforeAnyHTTPRequest(t *testing.T) {
	user := model.UserMessage("hi")
	cases := map[string]model.Request{
		"negative cap":          {Messages: []model.Message{user}, MaxTokens: -1},
		"schema not an object":  {Messages: []model.Message{user}, Tools: []model.ToolDefinition{{Name: "f", InputSchema: json.RawMessage(`[1]`)}}},
		"duplicate wire names":  {Messages: []model.Message{user}, Tools: []model.ToolDefinition{{Name: "f"}, {Name: "f"}}},
		"forced unknown tool":   {Messages: []model.Message{user}, ToolChoice: model.ToolChoice{Mode: model.ToolChoiceTool, Name: "f"}},
		"required without tool": {Messages: []model.Message{user}, ToolChoice: model.ToolChoice{Mode: model.ToolChoiceRequired}},
		"call without id":       {Messages: []model.Message{user, assistantCall("", "f", `{}`)}},
		"result without id":     {Messages: []model.Message{user, toolResult("", "f", `{}`)}},
		"tool call in user":     {Messages: []model.Message{{Role: model.RoleUser, Parts: assistantCall("c", "f", `{}`).Parts}}},
		"text in tool message":  {Messages: []model.Message{{Role: model.RoleTool, Parts: []model.Part{model.Text("x")}}}},
		"unknown role":          {Messages: []model.Message{{Role: "developer", Parts: []model.Part{model.Text("x")}}}},
	}
	p := newProvider(t)
	c := p.client()
	for name, req := range cases {
		_, err := c.Complete(ctx(t), &req)
		if err == nil || !strings.HasPrefix(err.Error(), "compat: ") {
			t.Errorf("%s: err = %v, want a compat: error", name, err)
		}
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestModelIDComesFromTheRequestTheClassMapOrTheDefault(t *testing.T) {
	p := newProvider(t, replies("a"), replies("b"), replies("c"))
	c := p.client(WithClassModel(model.ModelClassSmall, "qwen3-0.6b"))
	for _, req := range []model.Request{
		{Model: "llama3.1:8b"},
		{Class: model.ModelClassSmall},
		{Class: model.ModelClassHighReasoning},
	} {
		req.Messages = []model.Message{model.UserMessage("hi")}
		if _, err := c.Complete(ctx(t), &req); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []string{"llama3.1:8b", "qwen3-0.6b", "qwen3-8b"} {
		var got struct{ Model string }
		if err := json.Unmarshal(p.Request(i).Body, &got); err != nil || got.Model != want {
			t.Fatalf("request %d model = %q, want %q", i, got.Model, want)
		}
	}
	bare, err := New(WithBaseURL(p.URL() + "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}}); !errors.Is(err, model.ErrNoModel) {
		t.Fatalf("err = %v, want a missing model id", err)
	}
}

func TestNewValidatesItsOptions(t *testing.T) {
	for name, opts := range map[string][]Option{
		"no base URL":           nil,
		"relative base URL":     {WithBaseURL("localhost:8000/v1")},
		"unknown cap field":     {WithBaseURL("http://h/v1"), WithTokenLimitField("max_new_tokens")},
		"negative retries":      {WithBaseURL("http://h/v1"), WithMaxRetries(-1)},
		"empty class model":     {WithBaseURL("http://h/v1"), WithClassModel(model.ModelClassSmall, "")},
		"negative search limit": {WithBaseURL("http://h/v1"), WithDiscovery(discovery.Settings{Limit: -2})},
		"min relative score":    {WithBaseURL("http://h/v1"), WithDiscovery(discovery.Settings{MinRelativeScore: -0.1})},
	} {
		if _, err := New(opts...); err == nil || !strings.HasPrefix(err.Error(), "compat: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := New(WithBaseURL("http://h/v1"), WithDiscovery(discovery.Settings{})); err != nil {
		t.Errorf("zero discovery settings are the defaults: %v", err)
	}
}

func TestAPIKeyIsOptionalAndTheEnvironmentIsNeverRead(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-meant-for-api.openai.com")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	p := newProvider(t, replies("a"), replies("b"))
	req := func() *model.Request { return &model.Request{Messages: []model.Message{model.UserMessage("hi")}} }
	if _, err := p.client().Complete(ctx(t), req()); err != nil {
		t.Fatal(err)
	}
	if _, err := p.client(WithAPIKey("local-key")).Complete(ctx(t), req()); err != nil {
		t.Fatal(err)
	}
	if got := p.Request(0).Header.Get("Authorization"); got != "" {
		t.Fatalf("without a key the client sent Authorization %q", got)
	}
	if got := p.Request(1).Header.Get("Authorization"); got != "Bearer local-key" {
		t.Fatalf("Authorization = %q", got)
	}
}
