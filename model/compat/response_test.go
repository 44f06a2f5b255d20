package compat

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

func TestResponseMapsTextCallsUsageAndFinishReason(t *testing.T) {
	p := newProvider(t, providerfake.Answer{Body: `{
		"id":"chatcmpl-9","object":"chat.completion","created":1767225600,"model":"qwen3-8b",
		"choices":[{"index":0,"finish_reason":"tool_calls","logprobs":null,"message":{
			"role":"assistant","content":"Checking both.",
			"tool_calls":[
				{"id":"call_a","type":"function","function":{"name":"listTables","arguments":""}},
				{"id":"call_b","type":"function","function":{"name":"runQuery","arguments":"{\"sql\": "}}]}}],
		"usage":{"prompt_tokens":1200,"completion_tokens":35,"total_tokens":1235,
		         "prompt_tokens_details":{"cached_tokens":1024}}}`})
	resp, err := p.client().Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Tools: catalogTools()[:2]})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != model.StopToolUse {
		t.Fatalf("StopReason = %q", resp.StopReason)
	}
	if resp.Usage != (model.Usage{InputTokens: 1200, OutputTokens: 35, CacheReadTokens: 1024}) {
		t.Fatalf("Usage = %+v", resp.Usage)
	}
	if len(resp.Messages) != 1 {
		t.Fatalf("%d messages", len(resp.Messages))
	}
	m := resp.Messages[0]
	if m.Role != model.RoleAssistant || m.TextContent() != "Checking both." || m.Meta != nil {
		t.Fatalf("message = %+v", m)
	}
	calls := m.ToolCalls()
	if len(calls) != 2 || len(resp.ToolCalls) != 2 {
		t.Fatalf("calls = %+v / %+v", calls, resp.ToolCalls)
	}
	// Empty arguments become {}; text that is not JSON stays readable as a
	// JSON string, for the tool's codec to refuse.
	if string(resp.ToolCalls[0].Payload) != `{}` || string(resp.ToolCalls[1].Payload) != `"{\"sql\": "` {
		t.Fatalf("payloads = %s, %s", resp.ToolCalls[0].Payload, resp.ToolCalls[1].Payload)
	}
	// The message's parts and Response.ToolCalls do not share memory.
	resp.ToolCalls[0].Payload[0] = 'X'
	if string(calls[0].Payload) != `{}` {
		t.Fatal("the transcript's call shares its payload with Response.ToolCalls")
	}
}

func TestFinishReasonsMapToStopReasons(t *testing.T) {
	for finish, want := range map[string]model.StopReason{
		"stop":           model.StopEndTurn,
		"length":         model.StopMaxTokens,
		"tool_calls":     model.StopToolUse,
		"function_call":  model.StopToolUse,
		"content_filter": "content_filter",
	} {
		if got := toStopReason(finish); got != want {
			t.Errorf("%s → %q, want %q", finish, got, want)
		}
	}
}

func TestResponsesTheAdapterCannotMapAreErrors(t *testing.T) {
	p := newProvider(t,
		providerfake.Answer{Body: `{"id":"chatcmpl-0","object":"chat.completion","created":1,"model":"m","choices":[]}`},
		providerfake.Answer{Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"custom","custom":{"name":"grammar","input":"x"}}]}}]}`},
	)
	c := p.client()
	req := &model.Request{Messages: []model.Message{model.UserMessage("hi")}}
	if _, err := c.Complete(ctx(t), req); !errors.Is(err, ErrNoChoice) {
		t.Fatalf("no choice: err = %v", err)
	}
	if _, err := c.Complete(ctx(t), req); err == nil || !strings.Contains(err.Error(), "custom tool call") {
		t.Fatalf("custom call: err = %v", err)
	}
}

func TestProviderErrorCarriesStatusAndMessageAndWrapsTheSDKError(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		message   string
		code      string
		temporary bool
	}{
		{"OpenAI shape", http.StatusBadRequest,
			`{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			"This model's maximum context length is 8192 tokens.", "context_length_exceeded", false},
		{"top-level shape (vLLM)", http.StatusNotFound,
			`{"object":"error","message":"The model qwen3-8b does not exist.","type":"NotFoundError","param":null,"code":404}`,
			"The model qwen3-8b does not exist.", "404", false},
		{"plain text", http.StatusServiceUnavailable, "loading model", "loading model", "", true},
		{"rate limit", http.StatusTooManyRequests, `{"error":{"message":"slow down","type":"rate_limit"}}`, "slow down", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, providerfake.Answer{Status: tc.status, Body: tc.body})
			_, err := p.client().Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
			var pe *APIError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %T %v, want *APIError", err, err)
			}
			if pe.StatusCode != tc.status || pe.Message != tc.message || pe.Code != tc.code || pe.Temporary() != tc.temporary {
				t.Fatalf("APIError = %+v (temporary %v)", pe, pe.Temporary())
			}
			var sdk *openai.Error
			if !errors.As(err, &sdk) || sdk.StatusCode != tc.status {
				t.Fatalf("the SDK error is not wrapped: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "compat: the server answered ") || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("Error() = %q", err.Error())
			}
			if n := len(p.Requests()); n != 1 {
				t.Fatalf("%d requests with retries off", n)
			}
		})
	}
}

func TestProviderErrorDuringAPortableSearchRoundSurfaces(t *testing.T) {
	p := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		providerfake.Answer{Status: http.StatusInternalServerError, Body: `{"error":{"message":"CUDA out of memory","type":"server_error"}}`},
	)
	_, err := p.client().Complete(ctx(t), portableRequest(model.UserMessage("Export orders")))
	var pe *APIError
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusInternalServerError || pe.Message != "CUDA out of memory" {
		t.Fatalf("err = %v", err)
	}
}

func TestTransportErrorsAreWrappedWithThePackagePrefix(t *testing.T) {
	p := newProvider(t)
	c := p.client()
	p.Close()
	_, err := c.Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	var pe *APIError
	if err == nil || errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "compat: chat completion: ") {
		t.Fatalf("err = %v", err)
	}
}
