package advertised_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/model/tokencount/advertised"
)

// server is a local stand-in for a provider's API: it records each request
// body and answers every request with one canned response, as the
// adapters' own tests do.
type server struct {
	t      *testing.T
	path   string
	answer string
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newServer(t *testing.T, path, answer string) *server {
	t.Helper()
	s := &server{t: t, path: path, answer: answer}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.Method != http.MethodPost || r.URL.Path != s.path {
			t.Errorf("%s %s, want POST %s", r.Method, r.URL.Path, s.path)
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, s.answer)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// only returns the body of the one request received.
func (s *server) only() []byte {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) != 1 {
		s.t.Fatalf("server received %d requests, want 1", len(s.bodies))
	}
	return s.bodies[0]
}

// openAIAnswer is a completed Responses API response with one message.
const openAIAnswer = `{"id":"resp_1","object":"response","created_at":1767225600,"status":"completed","model":"gpt-5.4",` +
	`"error":null,"incomplete_details":null,"instructions":null,"metadata":{},"parallel_tool_calls":true,` +
	`"temperature":1,"top_p":1,"tool_choice":"auto","tools":[],"output":[{"type":"message","id":"msg_1","status":"completed",` +
	`"role":"assistant","content":[{"type":"output_text","text":"OK.","annotations":[]}]}],` +
	`"usage":{"input_tokens":200,"input_tokens_details":{"cached_tokens":0},"output_tokens":2,` +
	`"output_tokens_details":{"reasoning_tokens":0},"total_tokens":202}}`

// anthropicAnswer is a Messages API response with one text block.
const anthropicAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",` +
	`"content":[{"type":"text","text":"OK."}],"stop_reason":"end_turn","stop_sequence":null,` +
	`"usage":{"input_tokens":100,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`

// sendAndCapture sends Request(defs, o), with one user message, through
// p's real adapter to a local server and returns the "tools" member of the
// request body the server received, byte for byte (nil when absent).
func sendAndCapture(t *testing.T, p advertised.Provider, defs []model.ToolDefinition, o advertised.Options) json.RawMessage {
	t.Helper()
	req := advertised.Request(defs, o)
	req.Messages = []model.Message{model.UserMessage("Which tables do I have?")}
	var (
		client model.Client
		srv    *server
		err    error
	)
	switch p {
	case advertised.ProviderOpenAI:
		srv = newServer(t, "/responses", openAIAnswer)
		client, err = openai.New(openai.WithBaseURL(srv.srv.URL), openai.WithAPIKey("test-key"), openai.WithMaxRetries(0), openai.WithModel("gpt-5.4"))
	case advertised.ProviderAnthropic:
		srv = newServer(t, "/v1/messages", anthropicAnswer)
		opts := append([]anthropic.Option{anthropic.WithBaseURL(srv.srv.URL), anthropic.WithAPIKey("test-key"), anthropic.WithMaxRetries(0), anthropic.WithModel("claude-sonnet-4-5")}, o.AnthropicOptions()...)
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
	var members map[string]json.RawMessage
	if err := json.Unmarshal(srv.only(), &members); err != nil {
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
