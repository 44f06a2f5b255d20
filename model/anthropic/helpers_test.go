package anthropic_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// testModel is the model id the tests configure.
const testModel = "claude-sonnet-4-5"

// answer is one canned provider answer.
type answer struct {
	status int
	body   string
}

// ok is a 200 answer with a Messages API response body.
func ok(body string) answer { return answer{status: http.StatusOK, body: body} }

// captured is one request the fake provider received.
type captured struct {
	method, path string
	header       http.Header
	body         []byte
}

// provider is a local stand-in for the Messages API: it records each
// request and plays its answers in order.
type provider struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	answers []answer
	reqs    []captured
}

// newProvider starts a fake provider playing answers.
func newProvider(t *testing.T, answers ...answer) *provider {
	t.Helper()
	p := &provider{t: t, answers: answers}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.reqs = append(p.reqs, captured{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body})
	n := len(p.reqs)
	var a answer
	if n <= len(p.answers) {
		a = p.answers[n-1]
	}
	p.mu.Unlock()
	if a.status == 0 {
		a = answer{status: http.StatusInternalServerError, body: `{"type":"error","error":{"type":"api_error","message":"no answer scripted"}}`}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_test")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

// requests returns the requests received so far.
func (p *provider) requests() []captured {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]captured(nil), p.reqs...)
}

// request returns the i-th request (0-based), failing the test without it.
func (p *provider) request(i int) captured {
	p.t.Helper()
	rs := p.requests()
	if i >= len(rs) {
		p.t.Fatalf("provider got %d requests, want at least %d", len(rs), i+1)
	}
	return rs[i]
}

// client returns an adapter talking to the fake provider.
func (p *provider) client(opts ...anthropic.Option) *anthropic.Client {
	p.t.Helper()
	base := []anthropic.Option{
		anthropic.WithBaseURL(p.srv.URL),
		anthropic.WithAPIKey("test-key"),
		anthropic.WithModel(testModel),
		anthropic.WithMaxRetries(0),
	}
	c, err := anthropic.New(append(base, opts...)...)
	if err != nil {
		p.t.Fatal(err)
	}
	return c
}

// assertJSON fails unless got and want hold the same JSON value.
func assertJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	g, err := decode(got)
	if err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	w, err := decode([]byte(want))
	if err != nil {
		t.Fatalf("%s: expected value: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, indent(got), indent([]byte(want)))
	}
}

// field returns the JSON value at a top-level key of a request body.
func field(t *testing.T, body []byte, key string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

func decode(b []byte) (any, error) {
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

// catalog returns the tool definitions of the tests: one inline tool and
// two deferred ones with search documents.
func catalog() []model.ToolDefinition {
	def := func(wire, ident, title, desc, schema string, deferred bool, args ...search.Arg) model.ToolDefinition {
		d := model.ToolDefinition{Name: wire, Ident: tools.Ident(ident), Title: title, Description: desc, InputSchema: json.RawMessage(schema), Deferred: deferred}
		if deferred {
			doc := search.NewDocument(search.Source{Name: ident, Aliases: []string{wire}, Title: title, Description: desc, Args: args})
			d.Search = &doc
		}
		return d
	}
	return []model.ToolDefinition{
		def("records_lookup", "records.lookup", "Lookup", "Fetch one record by id.", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, false),
		def("records_export", "records.export", "Export records", "Start an export of a table of records to CSV or XLSX.", `{"type":"object","properties":{"table":{"type":"string"},"format":{"enum":["csv","xlsx"]}},"required":["table"]}`, true,
			search.Arg{Name: "table", Description: "table to export"}, search.Arg{Name: "format", Description: "file format"}),
		def("records_analyze", "records.analyze", "Analyze records", "Compute statistics over the records of a table.", `{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]}`, true,
			search.Arg{Name: "table", Description: "table to analyze"}),
	}
}

// toolsOf is the "tools" array the provider receives for catalog() with the
// given search tool closing it.
func toolsOf(searchTool string) string {
	return `[
	 {"name":"records_lookup","description":"Fetch one record by id.","input_schema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},
	 {"name":"records_export","description":"Start an export of a table of records to CSV or XLSX.","input_schema":{"type":"object","properties":{"table":{"type":"string"},"format":{"enum":["csv","xlsx"]}},"required":["table"]},"defer_loading":true},
	 {"name":"records_analyze","description":"Compute statistics over the records of a table.","input_schema":{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]},"defer_loading":true},
	 ` + searchTool + `]`
}

// bm25Tool is the hosted BM25 search tool as the provider receives it.
const bm25Tool = `{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`

// request returns a request over catalog() with one user message.
func request(text string) *model.Request {
	return &model.Request{
		System:    "You manage records.",
		Messages:  []model.Message{model.UserMessage(text)},
		Tools:     catalog(),
		MaxTokens: 1024,
	}
}

// usage is a Messages API usage object.
func usage(in, out int) string {
	b, _ := json.Marshal(map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "server_tool_use": map[string]any{"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard"})
	return string(b)
}

// message is a Messages API response body.
func message(id, stop string, out int, content ...string) string {
	c := "[]"
	if len(content) > 0 {
		c = "[" + join(content) + "]"
	}
	return `{"id":"` + id + `","type":"message","role":"assistant","model":"` + testModel + `","content":` + c + `,"stop_reason":"` + stop + `","stop_sequence":null,"usage":` + usage(100, out) + `}`
}

func join(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p)
	}
	return b.String()
}
