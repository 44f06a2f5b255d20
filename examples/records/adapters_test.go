package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/examples/records/gen/agents/workspace/assistant"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/compat"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// fakeProvider is a local stand-in for one provider's API: it answers every
// POST to its path with one provider-shaped final answer, and records each
// request body and the status it got.
type fakeProvider struct {
	srv    *httptest.Server
	path   string
	answer string

	mu       sync.Mutex
	bodies   [][]byte
	statuses []int
}

func newFakeProvider(t *testing.T, path, answer string) *fakeProvider {
	t.Helper()
	p := &fakeProvider{path: path, answer: answer}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	status := http.StatusOK
	if r.Method != http.MethodPost || r.URL.Path != p.path {
		status = http.StatusNotFound
	}
	p.mu.Lock()
	p.bodies = append(p.bodies, body)
	p.statuses = append(p.statuses, status)
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if status == http.StatusOK {
		_, _ = io.WriteString(w, p.answer)
		return
	}
	_, _ = io.WriteString(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`)
}

// requests returns the recorded bodies and statuses.
func (p *fakeProvider) requests() ([][]byte, []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.bodies), slices.Clone(p.statuses)
}

// The provider-shaped final answers, as each adapter's own tests fake them.
const (
	answerText = "12 orders are late."

	// openAIAnswer is a completed response of POST /responses
	// (responses.Response, openai-go/v3).
	openAIAnswer = `{"id":"resp_1","object":"response","created_at":1767225600,"status":"completed","model":"gpt-5.4",` +
		`"error":null,"incomplete_details":null,"instructions":null,"metadata":{},"parallel_tool_calls":true,` +
		`"temperature":1,"top_p":1,"tool_choice":"auto","tools":[],"output":[{"type":"message","id":"msg_1",` +
		`"status":"completed","role":"assistant","content":[{"type":"output_text","text":"` + answerText + `","annotations":[]}]}],` +
		`"usage":{"input_tokens":900,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},` +
		`"output_tokens":9,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":909}}`

	// anthropicAnswer is a final message of POST /v1/messages.
	anthropicAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",` +
		`"content":[{"type":"text","text":"` + answerText + `"}],"stop_reason":"end_turn","stop_sequence":null,` +
		`"usage":{"input_tokens":900,"output_tokens":9,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,` +
		`"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard"}}`

	// compatAnswer is a chat.completion of POST /v1/chat/completions.
	compatAnswer = `{"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"qwen3-8b",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"` + answerText + `"},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":900,"completion_tokens":9,"total_tokens":909}}`
)

// TestCacheCheckpointsThroughEachAdapter runs the generated agent, whose
// design declares both cache checkpoints, through each real adapter against
// a local fake of its provider: no request fails; what a provider cannot
// place is reported by CacheCheckpointIgnored events; Anthropic's request
// still carries cache_control.
func TestCacheCheckpointsThroughEachAdapter(t *testing.T) {
	if got := assistant.Definition().Policy.Cache; got != (model.CacheCheckpoints{AfterSystem: true, AfterTools: true}) {
		t.Fatalf("the design's Cache is %+v: this test needs both checkpoints declared", got)
	}
	cases := []struct {
		name   string
		path   string
		answer string
		client func(url string) (model.Client, error)
		search model.SearchSettings
		// ignored are the events the run must emit, in order.
		ignored []model.CacheCheckpoint
		// check inspects the request bodies.
		check func(t *testing.T, bodies [][]byte)
	}{
		{
			name: "openai", path: "/responses", answer: openAIAnswer,
			client: func(url string) (model.Client, error) {
				return openai.New(openai.WithBaseURL(url), openai.WithAPIKey("test-key"), openai.WithModel("gpt-5.4"), openai.WithMaxRetries(0))
			},
			ignored: []model.CacheCheckpoint{model.CheckpointAfterTools},
			check: func(t *testing.T, bodies [][]byte) {
				// AfterSystem is still placed on the system prompt.
				mustContain(t, bodies[0], "prompt_cache_breakpoint", true)
			},
		},
		{
			name: "anthropic", path: "/v1/messages", answer: anthropicAnswer,
			client: func(url string) (model.Client, error) {
				return anthropic.New(anthropic.WithBaseURL(url), anthropic.WithAPIKey("test-key"), anthropic.WithModel("claude-sonnet-4-5"), anthropic.WithMaxRetries(0))
			},
			check: func(t *testing.T, bodies [][]byte) {
				// Both placed: on the system block and on the last tool.
				if n := bytes.Count(bodies[0], []byte(`"cache_control"`)); n != 2 {
					t.Fatalf("cache_control appears %d times, want on the system block and the last tool: %s", n, bodies[0])
				}
			},
		},
		{
			// compat runs portable search itself: no portable.Wrap.
			name: "compat with portable search", path: "/v1/chat/completions", answer: compatAnswer,
			client: func(url string) (model.Client, error) {
				return compat.New(compat.WithBaseURL(url+"/v1"), compat.WithModel("qwen3-8b"), compat.WithMaxRetries(0))
			},
			search:  model.SearchSettings{Mode: model.SearchPortable},
			ignored: []model.CacheCheckpoint{model.CheckpointAfterSystem, model.CheckpointAfterTools},
			check: func(t *testing.T, bodies [][]byte) {
				mustContain(t, bodies[0], "cache", false)
				mustContain(t, bodies[0], `"search_tools"`, true)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakeProvider(t, tc.path, tc.answer)
			client, err := tc.client(p.srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, client))
			if err != nil {
				t.Fatal(err)
			}
			err = assistant.RegisterAssistantAgent(context.Background(), rt, assistant.AssistantAgentConfig{
				Planner:      planner.NewStandard(),
				SystemPrompt: "You help the user with the tables of their workspace.",
				MaxTokens:    1024,
				Search:       tc.search,
				Executors:    map[string]runtime.ToolExecutor{assistant.ToolsetWorkspace: runtime.ToolExecutorFunc(execute)},
			})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var ignored []model.CacheCheckpoint
			rt.Subscribe(func(e runtime.Event) {
				if e, ok := e.(runtime.CacheCheckpointIgnored); ok {
					mu.Lock()
					ignored = append(ignored, e.Checkpoint)
					mu.Unlock()
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := assistant.NewClient(rt).Run(ctx, userInput("How many orders are late?"))
			if err != nil {
				t.Fatalf("the run failed: %v", err)
			}
			if out.Status != runtime.StatusCompleted || out.Final == nil || out.Final.Text != answerText {
				t.Fatalf("run = %+v, want it completed with the provider's answer", out)
			}
			bodies, statuses := p.requests()
			if len(bodies) != 1 {
				t.Fatalf("%d provider requests, want one", len(bodies))
			}
			for i, s := range statuses {
				if s < 200 || s > 299 {
					t.Fatalf("request %d got HTTP %d: %s", i+1, s, bodies[i])
				}
			}
			tc.check(t, bodies)
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(ignored, tc.ignored) {
				t.Fatalf("CacheCheckpointIgnored events = %v, want %v", ignored, tc.ignored)
			}
		})
	}
}

// mustContain checks that body does (or does not) contain s.
func mustContain(t *testing.T, body []byte, s string, want bool) {
	t.Helper()
	if bytes.Contains(body, []byte(s)) != want {
		t.Fatalf("request body contains %q: %v, want %v\n%s", s, !want, want, body)
	}
}
