package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// provider is a local Chat Completions server: it records every request
// and answers from a script with provider-shaped JSON, which the official
// SDK decodes on the client side.
type provider struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	answers  []answer
	answered int
}

// answer is one scripted HTTP answer.
type answer struct {
	status int
	body   string
	sse    bool
}

func newProvider(t *testing.T, answers ...answer) *provider {
	t.Helper()
	p := &provider{t: t, answers: answers}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.bodies = append(p.bodies, body)
	p.headers = append(p.headers, r.Header.Clone())
	var a answer
	ok := p.answered < len(p.answers)
	if ok {
		a = p.answers[p.answered]
		p.answered++
	}
	p.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		p.t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	if !ok {
		p.t.Errorf("unscripted request %d: %s", len(p.bodies), body)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if a.sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	if a.status != 0 {
		w.WriteHeader(a.status)
	}
	_, _ = io.WriteString(w, a.body)
}

// client returns a compat client for the server (model "qwen3-8b", no
// retries) with extra options.
func (p *provider) client(opts ...Option) *Client {
	p.t.Helper()
	c, err := New(append([]Option{WithBaseURL(p.srv.URL + "/v1"), WithModel("qwen3-8b"), WithMaxRetries(0)}, opts...)...)
	if err != nil {
		p.t.Fatal(err)
	}
	return c
}

// requests returns the recorded request bodies.
func (p *provider) requests() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.bodies...)
}

// request returns recorded body i (0-based), failing when absent.
func (p *provider) request(i int) []byte {
	p.t.Helper()
	reqs := p.requests()
	if i >= len(reqs) {
		p.t.Fatalf("request %d of %d", i, len(reqs))
	}
	return reqs[i]
}

// wireCall is a tool call as the server sends it.
type wireCall struct{ id, name, args string }

// completion is a chat.completion object answering with content (null when
// empty) and calls; usage is prompt 100, completion 20.
func completion(finish, content string, calls ...wireCall) answer {
	msg := map[string]any{"role": "assistant", "content": nil}
	if content != "" {
		msg["content"] = content
	}
	if len(calls) > 0 {
		var tcs []any
		for _, c := range calls {
			tcs = append(tcs, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
		}
		msg["tool_calls"] = tcs
	}
	body := map[string]any{
		"id": "chatcmpl-" + finish, "object": "chat.completion", "created": 1767225600, "model": "qwen3-8b",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	}
	raw, _ := json.Marshal(body)
	return answer{body: string(raw)}
}

// callsTool answers with one tool call.
func callsTool(id, name, args string) answer {
	return completion("tool_calls", "", wireCall{id, name, args})
}

// replies answers with text.
func replies(text string) answer { return completion("stop", text) }

// assertJSON compares JSON documents structurally (numbers verbatim).
func assertJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	g, err1 := decodeJSON(got)
	w, err2 := decodeJSON([]byte(want))
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: invalid JSON: got %v, want %v", what, err1, err2)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s differs.\n got: %s\nwant: %s", what, indent(got), indent([]byte(want)))
	}
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func indent(b []byte) string {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		return string(b)
	}
	return buf.String()
}

// ctx returns a test context with a deadline.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// The catalog of the tests: DynoTable's shape (seed 004) in small — two
// inline tools and two deferred ones that users ask for by name.
const (
	listTablesSchema  = `{"type":"object","properties":{}}`
	runQuerySchema    = `{"type":"object","properties":{"sql":{"type":"string","description":"SQL to run."}},"required":["sql"]}`
	startExportSchema = `{"type":"object","properties":{"table":{"type":"string"},"format":{"type":"string","enum":["csv","parquet"]}},"required":["table"]}`
	indexStatsSchema  = `{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]}`
)

func inlineDef(name, desc, schema string) model.ToolDefinition {
	return model.ToolDefinition{Name: name, Ident: tools.Ident("ws." + name), Title: name, Description: desc, InputSchema: json.RawMessage(schema)}
}

func deferredDef(name, desc, schema string, keywords ...string) model.ToolDefinition {
	d := inlineDef(name, desc, schema)
	doc := search.NewDocument(search.Source{Name: string(d.Ident), Aliases: []string{name}, Title: name, Description: desc, Keywords: keywords})
	d.Deferred, d.Search = true, &doc
	return d
}

func catalogTools() []model.ToolDefinition {
	return []model.ToolDefinition{
		inlineDef("listTables", "List the tables of the database.", listTablesSchema),
		inlineDef("runQuery", "Run a read-only SQL query.", runQuerySchema),
		deferredDef("startExport", "Export a table to a file.", startExportSchema, "csv", "download"),
		deferredDef("indexStats", "Show index statistics of a table.", indexStatsSchema, "index", "statistics"),
	}
}

// Wire JSON of the catalog's function tools and of the portable search
// tool (model/portable), as the requests must carry them.
const (
	listTablesWire  = `{"type":"function","function":{"name":"listTables","description":"List the tables of the database.","parameters":` + listTablesSchema + `}}`
	runQueryWire    = `{"type":"function","function":{"name":"runQuery","description":"Run a read-only SQL query.","parameters":` + runQuerySchema + `}}`
	startExportWire = `{"type":"function","function":{"name":"startExport","description":"Export a table to a file.","parameters":` + startExportSchema + `}}`
	indexStatsWire  = `{"type":"function","function":{"name":"indexStats","description":"Show index statistics of a table.","parameters":` + indexStatsSchema + `}}`
	searchToolsWire = `{"type":"function","function":{"name":"search_tools","description":"Find tools you do not see yet. Describe what you want to do, or name the tool; the best matches become callable on your next step.","parameters":{"type":"object","properties":{"query":{"type":"string","description":"What you want to do, or the name of a tool."}},"required":["query"]}}}`
	systemWire      = `{"role":"system","content":"You are DynoTable's assistant."}`
)

// portableRequest is a request of an agent that opted into portable search.
func portableRequest(msgs ...model.Message) *model.Request {
	return &model.Request{
		System:    "You are DynoTable's assistant.",
		Messages:  msgs,
		Tools:     catalogTools(),
		MaxTokens: 512,
		Search:    model.SearchSettings{Mode: model.SearchPortable},
	}
}

// toolsJSON joins wire tool definitions into a JSON array.
func toolsJSON(defs ...string) string { return "[" + strings.Join(defs, ",") + "]" }

// toolMsg is the wire JSON of a tool message.
func toolMsg(callID, content string) string {
	raw, _ := json.Marshal(map[string]string{"role": "tool", "tool_call_id": callID, "content": content})
	return string(raw)
}

// callMsg is the wire JSON of an assistant message calling one function.
func callMsg(id, name, args string) string {
	raw, _ := json.Marshal(map[string]any{"role": "assistant", "tool_calls": []any{
		map[string]any{"id": id, "type": "function", "function": map[string]string{"name": name, "arguments": args}},
	}})
	return string(raw)
}

// userMsg is the wire JSON of a user message.
func userMsg(text string) string {
	raw, _ := json.Marshal(map[string]string{"role": "user", "content": text})
	return string(raw)
}

// body assembles an expected request body.
func body(messages []string, tools string, extra string) string {
	s := fmt.Sprintf(`{"model":"qwen3-8b","messages":[%s]`, strings.Join(messages, ","))
	if tools != "" {
		s += `,"tools":` + tools
	}
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}
