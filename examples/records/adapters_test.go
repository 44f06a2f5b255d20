package main

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/examples/records/gen/agents/workspace/assistant"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/compat"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// The provider-shaped final answers.
const answerText = "12 orders are late."

var (
	finalUsage      = providerfake.Usage{Input: 900, Output: 9}
	openAIAnswer    = providerfake.OpenAIResponse("resp_1", finalUsage, providerfake.OpenAIMessage("msg_1", answerText))
	anthropicAnswer = providerfake.AnthropicMessage("msg_1", "end_turn", finalUsage, providerfake.AnthropicText(answerText))
	compatAnswer    = providerfake.ChatCompletion("stop", answerText, finalUsage)
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
		// check inspects the request body.
		check func(t *testing.T, body []byte)
	}{
		{
			name: "openai", path: "/responses", answer: openAIAnswer,
			client: func(url string) (model.Client, error) {
				return openai.New(openai.WithBaseURL(url), openai.WithAPIKey("test-key"), openai.WithModel("gpt-5.4"), openai.WithMaxRetries(0))
			},
			ignored: []model.CacheCheckpoint{model.CheckpointAfterTools},
			check: func(t *testing.T, body []byte) {
				// AfterSystem is still placed on the system prompt.
				mustContain(t, body, "prompt_cache_breakpoint", true)
			},
		},
		{
			name: "anthropic", path: "/v1/messages", answer: anthropicAnswer,
			client: func(url string) (model.Client, error) {
				return anthropic.New(anthropic.WithBaseURL(url), anthropic.WithAPIKey("test-key"), anthropic.WithModel("claude-sonnet-4-5"), anthropic.WithMaxRetries(0))
			},
			check: func(t *testing.T, body []byte) {
				// Both placed: on the system block and on the last tool.
				if n := bytes.Count(body, []byte(`"cache_control"`)); n != 2 {
					t.Fatalf("cache_control appears %d times, want on the system block and the last tool: %s", n, body)
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
			check: func(t *testing.T, body []byte) {
				mustContain(t, body, "cache", false)
				mustContain(t, body, `"search_tools"`, true)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The fake fails the test on a request to another path or
			// beyond its one answer.
			p := providerfake.New(t, tc.path, providerfake.OK(tc.answer))
			client, err := tc.client(p.URL())
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
			reqs := p.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d provider requests, want one", len(reqs))
			}
			tc.check(t, reqs[0].Body)
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
