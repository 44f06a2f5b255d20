package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// provider is a local Chat Completions server (providerfake) with the
// client of the tests.
type provider struct {
	*providerfake.Server
	t *testing.T
}

func newProvider(t *testing.T, answers ...providerfake.Answer) *provider {
	t.Helper()
	return &provider{Server: providerfake.New(t, "/v1/chat/completions", answers...), t: t}
}

// client returns a compat client for the server (model "qwen3-8b", no
// retries) with extra options.
func (p *provider) client(opts ...Option) *Client {
	p.t.Helper()
	c, err := New(append([]Option{WithBaseURL(p.URL() + "/v1"), WithModel("qwen3-8b"), WithMaxRetries(0)}, opts...)...)
	if err != nil {
		p.t.Fatal(err)
	}
	return c
}

// usage is what every answer reports: prompt 100, completion 20.
var usage = providerfake.Usage{Input: 100, Output: 20}

// callsTool answers with one tool call.
func callsTool(id, name, args string) providerfake.Answer {
	return providerfake.OK(providerfake.ChatToolCall(id, name, args, usage))
}

// replies answers with text.
func replies(text string) providerfake.Answer {
	return providerfake.OK(providerfake.ChatReply(text, usage))
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
