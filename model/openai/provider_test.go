package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata")

const testKey = "test-key"

// exchange is one request the fake provider expects and its answer.
type exchange struct {
	// golden names the testdata file holding the exact request body.
	golden string
	// status is the HTTP status (200 when 0); body is the JSON answered.
	status int
	body   string
}

// provider is a local Responses API: it checks each request against its
// golden body and answers in turn.
type provider struct {
	t         *testing.T
	mu        sync.Mutex
	exchanges []exchange
	bodies    [][]byte
}

// newProvider starts a provider playing exchanges and returns a client
// bound to it.
func newProvider(t *testing.T, exchanges ...exchange) (*provider, *Client) {
	t.Helper()
	p := &provider{t: t, exchanges: exchanges}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	c, err := New(WithBaseURL(srv.URL), WithAPIKey(testKey), WithHTTPClient(srv.Client()), WithMaxRetries(0), WithModel("gpt-5.4"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if n := p.requests(); n != len(exchanges) {
			t.Errorf("provider received %d requests, want %d", n, len(exchanges))
		}
	})
	return p, c
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	i := len(p.bodies)
	p.bodies = append(p.bodies, body)
	p.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/responses" {
		p.t.Errorf("request %d: %s %s, want POST /responses", i+1, r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		p.t.Errorf("request %d: Authorization %q", i+1, got)
	}
	if i >= len(p.exchanges) {
		p.t.Errorf("unexpected request %d: %s", i+1, body)
		http.Error(w, `{"error":{"message":"unexpected request","type":"test"}}`, http.StatusTeapot)
		return
	}
	ex := p.exchanges[i]
	if ex.golden != "" {
		checkGolden(p.t, ex.golden, body)
	}
	status := ex.status
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, ex.body)
}

// requests returns how many requests arrived.
func (p *provider) requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.bodies)
}

// request returns the decoded body of request i (0-based).
func (p *provider) request(i int) map[string]any {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	var m map[string]any
	if err := json.Unmarshal(p.bodies[i], &m); err != nil {
		p.t.Fatalf("request %d: %v", i+1, err)
	}
	return m
}

// checkGolden compares a request body with testdata/<name>.json as JSON
// values, or rewrites the file with -update.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".json")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Errorf("%s: request body is not JSON: %v", name, err)
		return
	}
	pretty.WriteByte('\n')
	if *update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v (run go test -update to create it)", name, err)
		return
	}
	if !sameJSON(body, want) {
		t.Errorf("%s: request body differs from the golden file\n got: %s\nwant: %s", name, pretty.Bytes(), want)
	}
}

// hasSearchTool reports whether a request body offers tool_search.
func hasSearchTool(body map[string]any) bool {
	ts, _ := body["tools"].([]any)
	for _, t := range ts {
		if m, _ := t.(map[string]any); m["type"] == "tool_search" {
			return true
		}
	}
	return false
}

// Provider-shaped responses (the object of POST /responses:
// responses.Response in openai-go v3.99.0).

func response(id, status string, outputTokens int, items ...string) string {
	incomplete := "null"
	if status == "incomplete" {
		incomplete = `{"reason":"max_output_tokens"}`
	}
	return fmt.Sprintf(`{"id":%q,"object":"response","created_at":1767225600,"status":%q,"model":"gpt-5.4",`+
		`"error":null,"incomplete_details":%s,"instructions":null,"metadata":{},"parallel_tool_calls":true,`+
		`"temperature":1,"top_p":1,"tool_choice":"auto","tools":[],"output":[%s],`+
		`"usage":{"input_tokens":200,"input_tokens_details":{"cached_tokens":50,"cache_write_tokens":0},`+
		`"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}}`,
		id, status, incomplete, strings.Join(items, ","), outputTokens, 200+outputTokens)
}

func reasoningItem(id string) string {
	return fmt.Sprintf(`{"type":"reasoning","id":%q,"summary":[]}`, id)
}

func searchCallItem(id, callID, query string) string {
	return fmt.Sprintf(`{"type":"tool_search_call","id":%q,"call_id":%q,"execution":"client","status":"completed","arguments":{"query":%q}}`, id, callID, query)
}

func functionCallItem(id, callID, name, namespace, args string) string {
	ns := ""
	if namespace != "" {
		ns = fmt.Sprintf(`,"namespace":%q`, namespace)
	}
	return fmt.Sprintf(`{"type":"function_call","id":%q,"call_id":%q,"name":%q%s,"arguments":%q,"status":"completed"}`, id, callID, name, ns, args)
}

func messageItem(id, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, id, text)
}

// The test catalog: one eager tool and three deferred ones.

func def(ident tools.Ident, wire, title, desc, schema string, deferred bool, keywords ...string) model.ToolDefinition {
	d := model.ToolDefinition{Name: wire, Ident: ident, Title: title, Description: desc, InputSchema: json.RawMessage(schema), Deferred: deferred}
	if deferred {
		doc := search.NewDocument(search.Source{Name: string(ident), Aliases: []string{wire}, Title: title, Description: desc, Keywords: keywords})
		d.Search = &doc
	}
	return d
}

func catalog() []model.ToolDefinition {
	return []model.ToolDefinition{
		def("records.lookup", "lookup", "Look up a record", "Fetch one record by id.",
			`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, false),
		def("records.start_export", "start_export", "Start export", "Start exporting records to a CSV file.",
			`{"type":"object","properties":{"format":{"type":"string","enum":["csv"]}},"required":["format"]}`, true, "export", "csv", "download"),
		def("records.analyze", "analyze", "Analyze records", "Compute trends over a time range of records.",
			`{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}}}`, true, "trends", "statistics"),
		def("billing.send_invoice", "send_invoice", "Send invoice", "Email an invoice to a customer.",
			`{"type":"object","properties":{"customer":{"type":"string"}},"required":["customer"]}`, true, "billing", "email"),
	}
}

// baseRequest is a turn asking for an export, with the test catalog.
func baseRequest() *model.Request {
	return &model.Request{
		System:    "You manage records.",
		Messages:  []model.Message{model.UserMessage("Export my records as CSV.")},
		Tools:     catalog(),
		MaxTokens: 1000,
	}
}

// recordItems returns the adapter items stored on m, decoded.
func recordItems(t *testing.T, m model.Message) []map[string]any {
	t.Helper()
	raw, ok := m.Meta[MetaKey]
	if !ok {
		t.Fatalf("message has no %q metadata", MetaKey)
	}
	var rec struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Items
}

// itemTypes lists the "type" of each item.
func itemTypes(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it["type"].(string)
	}
	return out
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}
