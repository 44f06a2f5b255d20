package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/quiver-go/quiver/completion"
	"github.com/quiver-go/quiver/examples/records/gen/workspace/completions"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/compat"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/planner"
)

// The generated completion summarize_records, sent through each adapter
// to the local fake provider: the structured-output request in the
// provider's wire form, the typed value, streamed too, and the refusals.

// adapterCase is one provider: where its fake answers, how an answer
// carrying text is built, the request member that asks for the format,
// and a client on the fake.
type adapterCase struct {
	name, path string
	answer     func(text string) string
	format     func(body map[string]any) any
	client     func(t *testing.T, p *providerfake.Server) model.Client
}

var usage = providerfake.Usage{Input: 40, Output: 30}

var adapterCases = []adapterCase{
	{
		name: "openai", path: "/responses",
		answer: func(text string) string {
			return providerfake.OpenAIResponse("resp_1", usage, providerfake.OpenAIMessage("msg_1", text))
		},
		format: func(body map[string]any) any { return dig(body, "text", "format") },
		client: func(t *testing.T, p *providerfake.Server) model.Client {
			c, err := openai.New(openai.WithBaseURL(p.URL()), openai.WithAPIKey("k"), openai.WithHTTPClient(p.Client()), openai.WithMaxRetries(0), openai.WithModel("gpt-5.4"))
			check(t, err)
			return c
		},
	},
	{
		name: "anthropic", path: "/v1/messages",
		answer: func(text string) string {
			return providerfake.AnthropicMessage("msg_1", "end_turn", usage, providerfake.AnthropicText(text))
		},
		format: func(body map[string]any) any { return dig(body, "output_config", "format") },
		client: func(t *testing.T, p *providerfake.Server) model.Client {
			c, err := anthropic.New(anthropic.WithBaseURL(p.URL()), anthropic.WithAPIKey("k"), anthropic.WithModel("claude-sonnet-4-5"), anthropic.WithMaxRetries(0))
			check(t, err)
			return c
		},
	},
	{
		name: "compat", path: "/v1/chat/completions",
		answer: func(text string) string { return providerfake.ChatReply(text, usage) },
		format: func(body map[string]any) any { return dig(body, "response_format") },
		client: func(t *testing.T, p *providerfake.Server) model.Client {
			c, err := compat.New(compat.WithBaseURL(p.URL()+"/v1"), compat.WithModel("qwen3-8b"), compat.WithMaxRetries(0), compat.WithStructuredOutput())
			check(t, err)
			return c
		},
	},
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// dig returns the value at a path of object keys, or nil.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func summaryRequest() *model.Request {
	return &model.Request{
		System:    "Summarize the conversation below for the workspace's activity log.",
		Messages:  []model.Message{model.UserMessage("user: how many orders are late? assistant: 12.")},
		MaxTokens: 1024,
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestSummaryCompletesThroughEachAdapter(t *testing.T) {
	for _, tc := range adapterCases {
		t.Run(tc.name, func(t *testing.T) {
			p := providerfake.New(t, tc.path, providerfake.OK(tc.answer(summaryAnswer)))
			s, err := completions.SummarizeRecords.Complete(ctxFor(t), tc.client(t, p), summaryRequest())
			check(t, err)
			if s.Headline == "" || len(s.Tables) != 1 || s.Tables[0] != "sales.orders" || s.LateOrders == nil || *s.LateOrders != 12 {
				t.Fatalf("summary = %+v", s)
			}
			format := tc.format(p.Body(0))
			raw, _ := json.Marshal(format)
			if format == nil || !json.Valid(raw) || !containsSchema(format) {
				t.Fatalf("the request asks for no structured output: %s", raw)
			}
		})
	}
}

// containsSchema reports whether a wire form carries the completion's
// schema (the required "headline" somewhere under a "schema" member).
func containsSchema(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["schema"].(map[string]any); ok {
			if props, ok := s["properties"].(map[string]any); ok && props["headline"] != nil {
				return true
			}
		}
		for _, x := range v {
			if containsSchema(x) {
				return true
			}
		}
	}
	return false
}

func TestSummaryStreamsThroughEachAdapter(t *testing.T) {
	for _, tc := range adapterCases {
		t.Run(tc.name, func(t *testing.T) {
			p := providerfake.New(t, tc.path, providerfake.OK(tc.answer(summaryAnswer)))
			s, err := completions.SummarizeRecords.StreamComplete(ctxFor(t), tc.client(t, p), summaryRequest())
			check(t, err)
			if _, err := s.Value(); !errors.Is(err, completion.ErrNotComplete) {
				t.Fatalf("Value before the end: %v, want ErrNotComplete", err)
			}
			var text string
			deltas := 0
			for {
				c, err := s.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				check(t, err)
				if c.Type != completion.ChunkDelta {
					t.Fatalf("chunk %+v", c)
				}
				text += c.Delta
				deltas++
			}
			v, err := s.Value()
			check(t, err)
			if text != summaryAnswer || deltas < 2 || v.Headline == "" {
				t.Fatalf("%d deltas making %q, value %+v", deltas, text, v)
			}
		})
	}
}

func TestSummaryRefusesAnInvalidAnswerAfterOneRequest(t *testing.T) {
	for _, tc := range adapterCases {
		t.Run(tc.name, func(t *testing.T) {
			// Missing "tables", and a field the contract does not have.
			p := providerfake.New(t, tc.path, providerfake.OK(tc.answer(`{"headline":"Done.","mood":"great"}`)))
			_, err := completions.SummarizeRecords.Complete(ctxFor(t), tc.client(t, p), summaryRequest())
			var contract *planner.OutputContractError
			if !errors.As(err, &contract) || contract.Recoverable() || len(contract.Violations) == 0 {
				t.Fatalf("err = %v, want an OutputContractError with violations", err)
			}
			if n := len(p.Requests()); n != 1 {
				t.Fatalf("%d requests: an invalid answer is never sent back for correction", n)
			}
		})
	}
}

func TestSummaryRefusesBeforeAnyRequest(t *testing.T) {
	t.Run("a compat server without structured output", func(t *testing.T) {
		p := providerfake.New(t, "/v1/chat/completions")
		c, err := compat.New(compat.WithBaseURL(p.URL()+"/v1"), compat.WithModel("qwen3-8b"), compat.WithMaxRetries(0))
		check(t, err)
		_, err = completions.SummarizeRecords.Complete(ctxFor(t), c, summaryRequest())
		if !errors.Is(err, model.ErrStructuredOutputUnsupported) || len(p.Requests()) != 0 {
			t.Fatalf("err = %v after %d requests, want ErrStructuredOutputUnsupported before any", err, len(p.Requests()))
		}
	})
	for _, tc := range adapterCases {
		t.Run(tc.name+": tools or a caller's structured output", func(t *testing.T) {
			p := providerfake.New(t, tc.path)
			withTools := summaryRequest()
			withTools.Tools = []model.ToolDefinition{{Name: "openTable", InputSchema: json.RawMessage(`{"type":"object"}`)}}
			if _, err := completions.SummarizeRecords.Complete(ctxFor(t), tc.client(t, p), withTools); !errors.Is(err, completion.ErrToolsInCompletion) {
				t.Errorf("tools: %v", err)
			}
			withFormat := summaryRequest()
			withFormat.StructuredOutput = &model.StructuredOutput{Name: "other", Schema: json.RawMessage(`{"type":"object"}`)}
			if _, err := completions.SummarizeRecords.StreamComplete(ctxFor(t), tc.client(t, p), withFormat); !errors.Is(err, completion.ErrStructuredOutputSet) {
				t.Errorf("caller's structured output: %v", err)
			}
			if n := len(p.Requests()); n != 0 {
				t.Fatalf("%d requests reached the provider", n)
			}
		})
	}
}
