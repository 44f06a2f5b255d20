package bedrock

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// answer is one reply of the fake Converse server.
type answer struct {
	status int
	// errorType is the X-Amzn-ErrorType header of an error reply.
	errorType string
	body      string
}

// ok answers 200 with body.
func ok(body string) answer { return answer{status: http.StatusOK, body: body} }

// fails answers an AWS restJson1 error.
func fails(status int, errorType, message string) answer {
	b, _ := json.Marshal(map[string]string{"message": message})
	return answer{status: status, errorType: errorType, body: string(b)}
}

// recorded is one request the fake server received.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         map[string]any
	// Raw is the body as sent.
	Raw string
}

// fake is a local server speaking Converse's wire protocol: POST
// /model/{modelId}/converse with a JSON body, answered from a queue; a
// POST to /model/{modelId}/converse-stream (Stream) gets the answer as
// ConverseStream frames (providerfake.BedrockStreamEvents).
type fake struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	answers  []answer
	requests []recorded
}

func newFake(t *testing.T, answers ...answer) *fake {
	t.Helper()
	f := &fake{t: t, answers: answers}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.t.Errorf("request body is not JSON: %v\n%s", err, raw)
	}
	f.mu.Lock()
	f.requests = append(f.requests, recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: string(raw)})
	var a answer
	if len(f.answers) == 0 {
		a = fails(http.StatusInternalServerError, "InternalServerException", "the fake has no answer left")
		f.t.Errorf("unexpected request %d to %s", len(f.requests), r.URL.Path)
	} else {
		a, f.answers = f.answers[0], f.answers[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Requestid", "req-1")
	if a.errorType != "" {
		w.Header().Set("X-Amzn-Errortype", a.errorType)
	}
	if strings.HasSuffix(r.URL.Path, "/converse-stream") && a.status == http.StatusOK {
		// ConverseStream: the answer's events, as Bedrock frames them.
		events := providerfake.BedrockStreamEvents(a.body)
		if events == nil {
			f.t.Errorf("request %s asks for a stream and its scripted answer is not a Converse answer: %s", r.URL.Path, a.body)
		}
		w.Header().Set("Content-Type", providerfake.BedrockStreamContentType)
		w.WriteHeader(a.status)
		for _, e := range events {
			_, _ = w.Write(e.Raw)
		}
		return
	}
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

// Requests returns the requests received so far.
func (f *fake) Requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

// awsConfig is a static configuration: region us-east-1 and fixed keys,
// so the SDK signs with SigV4 and never looks for credentials.
func awsConfig() aws.Config {
	return aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
	}
}

// client returns a client for the fake (model "amazon.nova-pro-v1:0", no
// retries) with extra options.
func (f *fake) client(opts ...Option) *Client {
	f.t.Helper()
	c, err := New(append([]Option{WithAWSConfig(awsConfig()), WithBaseURL(f.srv.URL), WithModel(novaID), WithMaxRetries(0)}, opts...)...)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

const (
	novaID   = "amazon.nova-pro-v1:0"
	claudeID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
)

// toolUse is a Converse answer calling one tool.
func toolUse(id, name, input string) string {
	return `{"output":{"message":{"role":"assistant","content":[{"text":"Let me look."},{"toolUse":{"toolUseId":"` + id + `","name":"` + name + `","input":` + input + `}}]}},"stopReason":"tool_use","usage":{"inputTokens":100,"outputTokens":20,"totalTokens":120}}`
}

// reply is a Converse answer with text.
func reply(text string) string {
	return `{"output":{"message":{"role":"assistant","content":[{"text":"` + text + `"}]}},"stopReason":"end_turn","usage":{"inputTokens":150,"outputTokens":10,"totalTokens":160,"cacheReadInputTokens":7,"cacheWriteInputTokens":3}}`
}

// ctx returns a test context with a deadline.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// at walks a decoded JSON value: string keys for objects, ints for arrays.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %v is not an object", path, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: %v is not an array of more than %d", path, v, k)
			}
			v = a[k]
		}
	}
	return v
}

// jsonEq reports whether v encodes to the same JSON as want.
func jsonEq(t *testing.T, v any, want string) bool {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(v)
	b, _ := json.Marshal(w)
	return string(a) == string(b)
}
