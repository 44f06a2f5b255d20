package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

func TestNoDeferredToolsSendsPlainRequest(t *testing.T) {
	p, c := newProvider(t, exchange{golden: "plain", body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Record r1 is open."))})
	req := baseRequest()
	req.Tools = catalog()[:1]
	req.MaxTokens = 0
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if hasSearchTool(p.Body(0)) {
		t.Error("tool_search sent without deferred tools")
	}
	if _, ok := p.Body(0)["max_output_tokens"]; ok {
		t.Error("max_output_tokens sent for MaxTokens 0")
	}
	equal(t, "text", resp.Text(), "Record r1 is open.")
	equal(t, "stop reason", resp.StopReason, model.StopEndTurn)
	if _, ok := resp.Messages[0].Discovery(); ok {
		t.Error("discovery record without a search")
	}
	equal(t, "replay items", itemTypes(recordItems(t, resp.Messages[0])), []string{"message"})
}

func TestMessagesWithoutAdapterMetadata(t *testing.T) {
	// A transcript written elsewhere (another adapter, a test) is rebuilt
	// from its parts; nothing the provider did not return is added (no
	// item id, no namespace, no status).
	p, c := newProvider(t, exchange{golden: "plain_history", body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Done."))})
	req := baseRequest()
	req.Tools = catalog()[:1]
	req.Messages = append(req.Messages,
		model.Message{Role: model.RoleAssistant, Parts: []model.Part{
			model.Text("Looking it up."),
			{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: "call_9", Name: "lookup", Payload: json.RawMessage(`{"id":"r1"}`)}},
		}},
		toolResult("call_9", "lookup", `{"status":"open"}`),
		model.SystemMessage("Answer briefly."),
	)
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	call := p.Body(0)["input"].([]any)[2].(map[string]any)
	equal(t, "function_call", call, map[string]any{"type": "function_call", "call_id": "call_9", "name": "lookup", "arguments": `{"id":"r1"}`})
}

func TestCacheAfterSystemMarksTheSystemPrompt(t *testing.T) {
	p, c := newProvider(t, exchange{golden: "cache_after_system", body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "OK."))})
	req := baseRequest()
	req.Tools = catalog()[:1]
	req.Cache.AfterSystem = true
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Body(0)["instructions"]; ok {
		t.Error("instructions sent with a system cache checkpoint")
	}
}

func TestForcedDeferredToolIsSentEagerly(t *testing.T) {
	p, c := newProvider(t, exchange{golden: "forced_tool", body: response("resp_1", "completed", 9,
		providerfake.OpenAIFunctionCall("fc_1", "call_1", "send_invoice", "", `{"customer":"c1"}`))})
	req := baseRequest()
	req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "send_invoice"}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	equal(t, "tool_choice", p.Body(0)["tool_choice"], map[string]any{"type": "function", "name": "send_invoice"})
}

func TestToolChoiceModes(t *testing.T) {
	for mode, want := range map[model.ToolChoiceMode]any{model.ToolChoiceNone: "none", model.ToolChoiceRequired: "required"} {
		p, c := newProvider(t, exchange{body: response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "OK."))})
		req := baseRequest()
		req.ToolChoice = model.ToolChoice{Mode: mode}
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		equal(t, "tool_choice", p.Body(0)["tool_choice"], want)
	}
	_, c := newProvider(t)
	req := baseRequest()
	req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "nope"}
	if _, err := c.Complete(context.Background(), req); err == nil {
		t.Error("forcing an unknown tool succeeded")
	}
}

func TestProviderErrorIsTyped(t *testing.T) {
	const body = `{"error":{"message":"The model 'gpt-nope' does not exist.","type":"invalid_request_error","param":"model","code":"model_not_found"}}`
	for _, status := range []int{http.StatusBadRequest, http.StatusInternalServerError} {
		_, c := newProvider(t, exchange{status: status, body: body})
		_, err := c.Complete(context.Background(), baseRequest())
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v, want *APIError", err)
		}
		equal(t, "status", apiErr.StatusCode, status)
		equal(t, "message", apiErr.Message, "The model 'gpt-nope' does not exist.")
		equal(t, "code", apiErr.Code, "model_not_found")
		var sdkErr *sdk.Error
		if !errors.As(err, &sdkErr) || sdkErr.StatusCode != status {
			t.Errorf("err does not wrap the SDK's *openai.Error: %v", err)
		}
		if errors.Is(err, model.ErrToolSearchUnsupported) {
			t.Error("the adapter returned ErrToolSearchUnsupported")
		}
		t.Log(err)
	}
}

func TestModelResolution(t *testing.T) {
	c, err := New(WithModel("gpt-default"), WithClassModel(model.ModelClassSmall, "gpt-small"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req  model.Request
		want string
	}{
		{model.Request{Model: "gpt-pinned", Class: model.ModelClassSmall}, "gpt-pinned"},
		{model.Request{Class: model.ModelClassSmall}, "gpt-small"},
		{model.Request{Class: model.ModelClassHighReasoning}, "gpt-default"},
		{model.Request{}, "gpt-default"},
	} {
		got, err := c.modelID(&tc.req)
		if err != nil || got != tc.want {
			t.Errorf("modelID(%+v) = %q, %v; want %q", tc.req, got, err, tc.want)
		}
	}
	bare, _ := New()
	if _, err := bare.modelID(&model.Request{}); !errors.Is(err, model.ErrNoModel) {
		t.Errorf("err = %v, want ErrNoModel", err)
	}
}

func TestUnwrappedPortableRequestIsRefused(t *testing.T) {
	p, c := newProvider(t)
	req := baseRequest()
	req.Search.Mode = model.SearchPortable
	if _, err := c.Complete(context.Background(), req); !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "portable.Wrap") {
		t.Fatalf("err = %v, want the portable-search misconfiguration", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent, want none", n)
	}
}

func TestSupportsSearchIsNativeOnly(t *testing.T) {
	_, c := newProvider(t)
	if err := c.SupportsSearch(model.SearchSettings{}); err != nil {
		t.Fatalf("native: %v", err)
	}
	if err := c.SupportsSearch(model.SearchSettings{Mode: model.SearchPortable}); !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "portable.Wrap") {
		t.Fatalf("portable: err = %v, want ErrToolSearchUnsupported naming portable.Wrap", err)
	}
	if err := c.SupportsSearch(model.SearchSettings{ToolName: "find tools"}); err == nil || !strings.Contains(err.Error(), "must match") {
		t.Fatalf("bad tool name: err = %v", err)
	}
}

func TestNewRejectsDiscoverySettingsOutOfRange(t *testing.T) {
	for _, o := range []Option{WithDiscovery(discovery.Settings{Limit: -1}), WithDiscovery(discovery.Settings{MinRelativeScore: -0.5})} {
		if _, err := New(o); err == nil || !strings.HasPrefix(err.Error(), "openai: ") {
			t.Errorf("err = %v", err)
		}
	}
}
