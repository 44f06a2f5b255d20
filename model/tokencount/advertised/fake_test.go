package advertised_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/model/tokencount/advertised"
)

// The provider answers: a completed response with one message (OpenAI
// Responses), a message with one text block (Anthropic Messages).
var (
	openAIAnswer    = providerfake.OpenAIResponse("resp_1", providerfake.Usage{Input: 200, Output: 2}, providerfake.OpenAIMessage("msg_1", "OK."))
	anthropicAnswer = providerfake.AnthropicMessage("msg_1", "end_turn", providerfake.Usage{Input: 100, Output: 2}, providerfake.AnthropicText("OK."))
)

// sendAndCapture sends Request(defs, o), with one user message, through
// p's real adapter to a local server and returns the "tools" member of the
// request body the server received, byte for byte (nil when absent).
func sendAndCapture(t *testing.T, p advertised.Provider, defs []model.ToolDefinition, o advertised.Options) json.RawMessage {
	t.Helper()
	req := advertised.Request(defs, o)
	req.Messages = []model.Message{model.UserMessage("Which tables do I have?")}
	var (
		client model.Client
		srv    *providerfake.Server
		err    error
	)
	switch p {
	case advertised.ProviderOpenAI:
		srv = providerfake.New(t, "/responses", providerfake.OK(openAIAnswer))
		client, err = openai.New(openai.WithBaseURL(srv.URL()), openai.WithAPIKey("test-key"), openai.WithMaxRetries(0), openai.WithModel("gpt-5.4"))
	case advertised.ProviderAnthropic:
		srv = providerfake.New(t, "/v1/messages", providerfake.OK(anthropicAnswer))
		opts := append([]anthropic.Option{anthropic.WithBaseURL(srv.URL()), anthropic.WithAPIKey("test-key"), anthropic.WithMaxRetries(0), anthropic.WithModel("claude-sonnet-4-5")}, o.AnthropicOptions()...)
		client, err = anthropic.New(opts...)
	default:
		t.Fatalf("no fake server for provider %q", p)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Complete(context.Background(), req); err != nil {
		t.Fatalf("%s: Complete: %v", p, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%s: the provider received %d requests, want 1", p, len(reqs))
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(reqs[0].Body, &members); err != nil {
		t.Fatal(err)
	}
	return members["tools"]
}

// compact returns data compacted, failing the test on invalid JSON.
func compact(t *testing.T, data []byte) string {
	t.Helper()
	if len(data) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return buf.String()
}

// elements decodes a tools array into its elements as generic values.
func elements(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return out
}

func describe(els []map[string]any) string {
	var b bytes.Buffer
	for i, e := range els {
		if i > 0 {
			b.WriteString(", ")
		}
		name, _ := e["name"].(string)
		fmt.Fprintf(&b, "%s", name)
		if e["defer_loading"] == true {
			b.WriteString("(deferred)")
		}
	}
	return b.String()
}
