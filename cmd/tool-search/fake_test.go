package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// testKey is the API key the tests put in the environment.
const testKey = "test-key"

// fakeProvider is a local stand-in for a provider's API: it checks that
// each request is a POST to path carrying the test key, records its body
// and answers with the next scripted provider-shaped JSON.
type fakeProvider struct {
	t       *testing.T
	srv     *httptest.Server
	path    string
	answers []string

	mu     sync.Mutex
	bodies [][]byte
}

func newFakeProvider(t *testing.T, path string, answers ...string) *fakeProvider {
	t.Helper()
	p := &fakeProvider{t: t, path: path, answers: answers}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.bodies = append(p.bodies, body)
	n := len(p.bodies)
	p.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != p.path {
		p.t.Errorf("request %d: %s %s, want POST %s", n, r.Method, r.URL.Path, p.path)
	}
	if r.Header.Get("Authorization") != "Bearer "+testKey && r.Header.Get("X-Api-Key") != testKey {
		p.t.Errorf("request %d does not carry the key from the environment: %v", n, r.Header)
	}
	w.Header().Set("Content-Type", "application/json")
	if n > len(p.answers) {
		p.t.Errorf("unscripted request %d: %s", n, body)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":{"message":"no answer scripted","type":"test"}}`)
		return
	}
	_, _ = io.WriteString(w, p.answers[n-1])
}

// requests returns the request bodies received so far, decoded.
func (p *fakeProvider) requests() []map[string]any {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]map[string]any, len(p.bodies))
	for i, b := range p.bodies {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			p.t.Fatalf("request %d is not JSON: %v", i+1, err)
		}
	}
	return out
}

// OpenAI Responses (POST /responses): a responses.Response object of
// openai-go v3 and its output items, as model/openai's tests fake them.

func openAIResponse(id string, items ...string) string {
	return fmt.Sprintf(`{"id":%q,"object":"response","created_at":1767225600,"status":"completed","model":"gpt-5.4",`+
		`"error":null,"incomplete_details":null,"instructions":null,"metadata":{},"parallel_tool_calls":true,`+
		`"temperature":1,"top_p":1,"tool_choice":"auto","tools":[],"output":[%s],`+
		`"usage":{"input_tokens":300,"input_tokens_details":{"cached_tokens":100,"cache_write_tokens":0},`+
		`"output_tokens":20,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":320}}`,
		id, strings.Join(items, ","))
}

func openAISearchCall(id, callID, query string) string {
	return fmt.Sprintf(`{"type":"tool_search_call","id":%q,"call_id":%q,"execution":"client","status":"completed","arguments":{"query":%q}}`, id, callID, query)
}

// openAIFunctionCall is a call of a function a search loaded: the provider
// echoes the namespace the adapter put it in.
func openAIFunctionCall(id, callID, name, args string) string {
	return fmt.Sprintf(`{"type":"function_call","id":%q,"call_id":%q,"name":%q,"namespace":%q,"arguments":%q,"status":"completed"}`, id, callID, name, name, args)
}

func openAIMessage(id, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, id, text)
}

// Anthropic Messages (POST /v1/messages): a message object and its content
// blocks, as model/anthropic's tests fake them.

func anthropicMessage(id, stop string, blocks ...string) string {
	return `{"id":"` + id + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` + strings.Join(blocks, ",") +
		`],"stop_reason":"` + stop + `","stop_sequence":null,"usage":{"input_tokens":300,"output_tokens":20,` +
		`"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard"}}`
}

func anthropicText(text string) string {
	raw, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return string(raw)
}

// anthropicHostedSearch is a hosted BM25 search and its result, which
// references (loads) one tool.
func anthropicHostedSearch(id, query, tool string) string {
	return fmt.Sprintf(`{"type":"server_tool_use","id":%q,"name":"tool_search_tool_bm25","input":{"query":%q},"caller":{"type":"direct"}},`+
		`{"type":"tool_search_tool_result","tool_use_id":%q,"content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":%q}]}}`,
		id, query, id, tool)
}

func anthropicToolUse(id, name, input string) string {
	return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":%s,"caller":{"type":"direct"}}`, id, name, input)
}

// OpenAI-compatible Chat Completions (POST /v1/chat/completions): a
// chat.completion object, as model/compat's tests fake it.

func chatCompletion(finish, content string, call ...string) string {
	msg := map[string]any{"role": "assistant", "content": nil}
	if content != "" {
		msg["content"] = content
	}
	if len(call) == 3 {
		msg["tool_calls"] = []any{map[string]any{"id": call[0], "type": "function", "function": map[string]any{"name": call[1], "arguments": call[2]}}}
	}
	raw, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600, "model": "qwen3:8b",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320},
	})
	return string(raw)
}

func chatCall(id, name, args string) string { return chatCompletion("tool_calls", "", id, name, args) }

func chatReply(text string) string { return chatCompletion("stop", text) }
