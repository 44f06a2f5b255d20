package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
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
	// header holds response headers to set (newBedrock answers them).
	header map[string]string
	// streamed says the request asks for a stream ("stream": true): its
	// body is otherwise the golden one, the body Complete sends.
	streamed bool
}

// newProvider starts a local Responses API playing exchanges and returns
// it with a client bound to it. When the test ends it checks that every
// exchange took place, that each request carried the key and that each
// body matches its golden file.
func newProvider(t *testing.T, exchanges ...exchange) (*providerfake.Server, *Client) {
	t.Helper()
	answers := make([]providerfake.Answer, len(exchanges))
	for i, ex := range exchanges {
		answers[i] = providerfake.Answer{Status: ex.status, Body: ex.body}
	}
	return fakeResponses(t, answers, func(i int, r providerfake.Request) {
		if exchanges[i].golden != "" {
			checkGolden(t, exchanges[i].golden, wholeBody(t, r.Body, exchanges[i].streamed))
		}
	})
}

// fakeResponses starts a local Responses API playing answers and returns
// it with a client bound to it. When the test ends it checks that every
// answer was asked for and each request carried the key, then hands each
// request to check.
func fakeResponses(t *testing.T, answers []providerfake.Answer, check func(i int, r providerfake.Request)) (*providerfake.Server, *Client) {
	t.Helper()
	p := providerfake.New(t, "/responses", answers...)
	c, err := New(WithBaseURL(p.URL()), WithAPIKey(testKey), WithHTTPClient(p.Client()), WithMaxRetries(0), WithModel("gpt-5.4"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		reqs := p.Requests()
		if len(reqs) != len(answers) {
			t.Errorf("provider received %d requests, want %d", len(reqs), len(answers))
		}
		for i, r := range reqs {
			if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
				t.Errorf("request %d: Authorization %q", i+1, got)
			}
			if i < len(answers) {
				check(i, r)
			}
		}
	})
	return p, c
}

// wholeBody is a request body without its "stream" member, which must be
// true when streamed and absent otherwise: a streamed request is the
// request Complete sends, asking for a stream.
func wholeBody(t *testing.T, body []byte, streamed bool) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Errorf("request body is not a JSON object: %v", err)
		return body
	}
	got, ok := m["stream"]
	switch {
	case streamed && string(got) != "true":
		t.Errorf(`a streamed request has "stream": %s, want true`, got)
	case !streamed && ok:
		t.Errorf(`a whole request has "stream": %s`, got)
	}
	delete(m, "stream")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
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

// response is a response object (providerfake.OpenAIResponse) with
// status "completed" or "incomplete" and the usage the tests sum: 200
// input tokens, 50 of them cached, and outputTokens.
func response(id, status string, outputTokens int, items ...string) string {
	u := providerfake.Usage{Input: 200, CacheRead: 50, Output: outputTokens}
	if status == "incomplete" {
		return providerfake.OpenAIIncompleteResponse(id, u, items...)
	}
	return providerfake.OpenAIResponse(id, u, items...)
}

// reasoningItem is a reasoning output item (responses.ResponseReasoningItem).
func reasoningItem(id string) string {
	return fmt.Sprintf(`{"type":"reasoning","id":%q,"summary":[]}`, id)
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
