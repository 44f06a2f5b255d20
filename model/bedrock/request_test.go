package bedrock

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
)

// exampleTool declares root payload examples.
func exampleTool() model.ToolDefinition {
	return model.ToolDefinition{
		Name:        "runQuery",
		Description: "Run a read-only SQL query.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string"},"limit":{"type":"integer","maximum":12345678901234567890}},"required":["sql"]}`),
		Examples:    []json.RawMessage{json.RawMessage(`{"sql":"SELECT 1"}`)},
	}
}

// TestRequestShape checks the Converse body: inferenceConfig, tool choice,
// the schema sent verbatim (big numbers intact), and tool examples left
// out for every model, Claude included (package doc).
func TestRequestShape(t *testing.T) {
	for _, id := range []string{novaID, claudeID} {
		t.Run(id, func(t *testing.T) {
			f := newFake(t, ok(reply("ok")))
			req := &model.Request{
				Model:      id,
				System:     "Be brief.",
				Messages:   []model.Message{model.UserMessage("Count the orders")},
				Tools:      []model.ToolDefinition{exampleTool()},
				ToolChoice: model.ToolChoice{Mode: model.ToolChoiceRequired},
				MaxTokens:  256,
			}
			if _, err := f.client(WithTemperature(0.5)).Complete(ctx(t), req); err != nil {
				t.Fatal(err)
			}
			r := f.Requests()[0]
			if r.Path != "/model/"+id+"/converse" {
				t.Errorf("path = %s", r.Path)
			}
			if got := at(t, r.Body, "inferenceConfig"); !jsonEq(t, got, `{"maxTokens":256,"temperature":0.5}`) {
				t.Errorf("inferenceConfig = %v", got)
			}
			if got := at(t, r.Body, "toolConfig", "toolChoice"); !jsonEq(t, got, `{"any":{}}`) {
				t.Errorf("toolChoice = %v", got)
			}
			raw := r.Raw
			if !strings.Contains(raw, `"maximum":12345678901234567890`) {
				t.Errorf("the schema's number lost precision: %s", raw)
			}
			if strings.Contains(raw, "SELECT 1") || strings.Contains(raw, "additionalModelRequestFields") {
				t.Errorf("tool examples were sent: %s", raw)
			}
		})
	}
}

// TestToolResultStatusOnlyForClaude: a failed tool result carries status
// "error" for Claude ids, the only models that accept the field, and
// consecutive user-side messages are merged (roles must alternate).
func TestToolResultStatusOnlyForClaude(t *testing.T) {
	msgs := []model.Message{
		model.UserMessage("Count the orders"),
		{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "tu_1", Name: "runQuery", Payload: json.RawMessage(`{"sql":"SELECT count(*) FROM orders"}`)}}}},
		{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "tu_1", Name: "runQuery", Content: json.RawMessage(`{"error":"no such table"}`), IsError: true}}}},
		model.UserMessage("Try again"),
	}
	for id, want := range map[string]string{
		claudeID: `{"toolUseId":"tu_1","content":[{"text":"{\"error\":\"no such table\"}"}],"status":"error"}`,
		novaID:   `{"toolUseId":"tu_1","content":[{"text":"{\"error\":\"no such table\"}"}]}`,
	} {
		f := newFake(t, ok(reply("ok")))
		if _, err := f.client().Complete(ctx(t), &model.Request{Model: id, Messages: msgs, Tools: []model.ToolDefinition{exampleTool()}}); err != nil {
			t.Fatal(err)
		}
		wire := at(t, f.Requests()[0].Body, "messages").([]any)
		if len(wire) != 3 {
			t.Fatalf("%s: %d wire messages, want 3 (the result and the user text merged): %v", id, len(wire), wire)
		}
		if got := at(t, wire[2], "content", 0, "toolResult"); !jsonEq(t, got, want) {
			t.Errorf("%s: toolResult = %v, want %s", id, got, want)
		}
		if got := at(t, wire[2], "content", 1, "text"); got != "Try again" {
			t.Errorf("%s: merged text = %v", id, got)
		}
	}
}

// TestDeferredToolsNeverSent: a request with deferred tools fails before
// any HTTP request; SupportsSearch refuses native mode and unwrapped
// portable mode, and portable.Wrap makes portable mode work.
func TestDeferredToolsNeverSent(t *testing.T) {
	f := newFake(t)
	c := f.client()
	d := exampleTool()
	d.Deferred = true
	_, err := c.Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Tools: []model.ToolDefinition{d}})
	if !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("Complete: err = %v, want ErrToolSearchUnsupported", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d HTTP requests, want none", n)
	}
	if err := c.SupportsSearch(model.SearchSettings{}); !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "model/anthropic") {
		t.Errorf("native: %v", err)
	}
	if err := c.SupportsSearch(model.SearchSettings{Mode: model.SearchPortable}); !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "portable.Wrap") {
		t.Errorf("portable unwrapped: %v", err)
	}
	if err := model.CheckSearch(portable.Wrap(c), model.SearchSettings{Mode: model.SearchPortable}); err != nil {
		t.Errorf("portable wrapped: %v", err)
	}
}

// TestRequestErrors: what Converse cannot carry fails before any request,
// saying what to change.
func TestRequestErrors(t *testing.T) {
	f := newFake(t)
	c := f.client()
	cases := map[string]struct {
		req  *model.Request
		want string
	}{
		"system message": {&model.Request{Messages: []model.Message{model.SystemMessage("x")}}, "Request.System"},
		"bad schema":     {&model.Request{Messages: []model.Message{model.UserMessage("x")}, Tools: []model.ToolDefinition{{Name: "t", InputSchema: json.RawMessage(`[1]`)}}}, "not a JSON object"},
		"unknown forced": {&model.Request{Messages: []model.Message{model.UserMessage("x")}, Tools: []model.ToolDefinition{exampleTool()}, ToolChoice: model.ToolChoice{Mode: model.ToolChoiceTool, Name: "nope"}}, "not among"},
		"negative cap":   {&model.Request{Messages: []model.Message{model.UserMessage("x")}, MaxTokens: -1}, "MaxTokens"},
	}
	for name, tc := range cases {
		if _, err := c.Complete(ctx(t), tc.req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one naming %q", name, err, tc.want)
		}
	}
	noModel, err := New(WithAWSConfig(awsConfig()), WithBaseURL(f.srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noModel.Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("x")}}); !errors.Is(err, model.ErrNoModel) {
		t.Errorf("no model: err = %v, want ErrNoModel", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d HTTP requests, want none", n)
	}
}

// TestNoToolsSendsToolBlocksAsText: Converse refuses toolUse and
// toolResult blocks without toolConfig, so a request offering no tools
// (the standard planner's final answer: ToolChoiceNone, no tools) sends
// the transcript's calls and results as text.
func TestNoToolsSendsToolBlocksAsText(t *testing.T) {
	f := newFake(t, ok(reply("There are 3 orders.")))
	msgs := []model.Message{
		model.UserMessage("Count the orders"),
		{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "tu_1", Name: "runQuery", Payload: json.RawMessage(`{"sql":"SELECT 3"}`)}}}},
		{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "tu_1", Name: "runQuery", Content: json.RawMessage(`{"count":3}`)}}}},
	}
	req := &model.Request{Messages: msgs, ToolChoice: model.ToolChoice{Mode: model.ToolChoiceNone}}
	if _, err := f.client().Complete(ctx(t), req); err != nil {
		t.Fatal(err)
	}
	r := f.Requests()[0]
	if strings.Contains(r.Raw, "toolConfig") || strings.Contains(r.Raw, "toolUse") || strings.Contains(r.Raw, "toolResult") {
		t.Fatalf("a request without tools carries tool blocks: %s", r.Raw)
	}
	wire := at(t, r.Body, "messages")
	if got := at(t, wire, 1, "content", 0, "text"); got != `[called tool runQuery (call tu_1) with {"sql":"SELECT 3"}]` {
		t.Errorf("assistant text = %v", got)
	}
	if got := at(t, wire, 2, "content", 0, "text"); got != `[result of tool runQuery (call tu_1): {"count":3}]` {
		t.Errorf("result text = %v", got)
	}
}
