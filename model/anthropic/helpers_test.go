package anthropic_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// testModel is the model id the tests configure.
const testModel = "claude-sonnet-4-5"

// requestID is the request-id header the provider sends with each answer.
var requestID = map[string]string{"request-id": "req_test"}

// ok is a 200 answer with a Messages API response body.
func ok(body string) providerfake.Answer {
	return providerfake.Answer{Status: http.StatusOK, Body: body, Header: requestID}
}

// provider is a local Messages API (providerfake) with the client of the
// tests.
type provider struct {
	*providerfake.Server
	t *testing.T
}

// newProvider starts a fake provider playing answers.
func newProvider(t *testing.T, answers ...providerfake.Answer) *provider {
	t.Helper()
	return &provider{Server: providerfake.New(t, "/v1/messages", answers...), t: t}
}

// client returns an adapter talking to the fake provider.
func (p *provider) client(opts ...anthropic.Option) *anthropic.Client {
	p.t.Helper()
	base := []anthropic.Option{
		anthropic.WithBaseURL(p.URL()),
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

// field returns the JSON value at a top-level key of a request body.
func field(t *testing.T, body []byte, key string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
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

// message is a Messages API response body (providerfake.AnthropicMessage)
// reporting 100 input tokens and out output tokens.
func message(id, stop string, out int, content ...string) string {
	return providerfake.AnthropicMessage(id, stop, providerfake.Usage{Input: 100, Output: out}, content...)
}
