package discovery_test

// One query on one catalog finds the same tools whichever provider the
// model runs on: portable search (portable.Wrap around the compat client),
// OpenAI's client-executed tool_search and Anthropic's client-side search
// tool, each against a local fake of its provider, all answered by the
// discovery core. The tools are read from the provider-shaped request that
// follows the search — what the model actually gets — and so are the
// answers that load nothing (no match, budget spent).

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/compat"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// sharedCatalog is one inline tool and several deferred ones whose search
// documents are built the way package catalog builds them: the spec's
// document (keyed by the ident) answering to the wire name too.
func sharedCatalog() []model.ToolDefinition {
	def := func(wire, title, desc string, deferred bool, keywords ...string) model.ToolDefinition {
		id := tools.Ident("ws." + wire)
		d := model.ToolDefinition{Name: wire, Ident: id, Title: title, Description: desc,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"table":{"type":"string"}}}`), Deferred: deferred}
		if deferred {
			doc := search.NewDocument(search.Source{Name: string(id), Title: title, Description: desc, Keywords: keywords,
				Args: []search.Arg{{Name: "table", Description: "the table"}}}).WithAliases(wire)
			d.Search = &doc
		}
		return d
	}
	return []model.ToolDefinition{
		def("openTable", "Open table", "Open a table of the workspace.", false),
		def("startExport", "Start export", "Export a table to a CSV or XLSX file.", true, "export", "csv", "download"),
		def("cancelExport", "Cancel export", "Cancel a running export.", true, "export", "stop"),
		def("exportChart", "Export chart", "Render a chart of a table as an image.", true, "chart", "png"),
		def("indexStats", "Index statistics", "Show the index statistics of a table.", true, "statistics", "index"),
		def("sendInvoice", "Send invoice", "Email an invoice to a customer.", true, "billing", "email"),
		def("listInvoices", "List invoices", "List the invoices of a customer.", true, "billing"),
	}
}

// sharedRequest is a turn over sharedCatalog with a cap of 3.
func sharedRequest(mode model.SearchMode) *model.Request {
	return &model.Request{
		System:    "You manage a workspace.",
		Messages:  []model.Message{model.UserMessage("Help me.")},
		Tools:     sharedCatalog(),
		MaxTokens: 1000,
		Search:    model.SearchSettings{Mode: mode, Cap: 3},
	}
}

// usage is what every provider answer reports.
var usage = providerfake.Usage{Input: 100, Output: 10}

// mode is one way our code answers a search: a client over its fake
// provider that searches once for query, then answers.
type mode struct {
	name   string
	search model.SearchMode
	// run completes req against a fake provider whose model searches for
	// query, and returns the fake.
	run func(t *testing.T, req *model.Request, query string) *providerfake.Server
	// loaded reads the tools the search made callable from the request
	// that follows it.
	loaded func(first, next map[string]any) []string
}

func modes() []mode {
	return []mode{
		{name: "portable", search: model.SearchPortable, run: runPortable, loaded: portableLoaded},
		{name: "openai", search: model.SearchNative, run: runOpenAI, loaded: openAILoaded},
		{name: "anthropic", search: model.SearchNative, run: runAnthropic, loaded: anthropicLoaded},
	}
}

// Portable search over the compat adapter: Chat Completions
// (chat.completion objects).
func runPortable(t *testing.T, req *model.Request, query string) *providerfake.Server {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"query": query})
	f := providerfake.New(t, "/v1/chat/completions",
		providerfake.OK(providerfake.ChatToolCall("call_s1", model.DefaultSearchToolName, string(args), usage)),
		providerfake.OK(providerfake.ChatReply("Done.", usage)),
	)
	inner, err := compat.New(compat.WithBaseURL(f.URL()+"/v1"), compat.WithModel("m"), compat.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := portable.Wrap(inner).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return f
}

// portableLoaded: the function tools the follow-up request advertises that
// the first did not.
func portableLoaded(first, next map[string]any) []string {
	names := func(body map[string]any) []string {
		var out []string
		ts, _ := body["tools"].([]any)
		for _, t := range ts {
			fn, _ := t.(map[string]any)["function"].(map[string]any)
			out = append(out, fn["name"].(string))
		}
		return out
	}
	before := names(first)
	var out []string
	for _, n := range names(next) {
		if !slices.Contains(before, n) {
			out = append(out, n)
		}
	}
	return out
}

// OpenAI Responses (response objects with a client tool_search_call).
func runOpenAI(t *testing.T, req *model.Request, query string) *providerfake.Server {
	t.Helper()
	f := providerfake.New(t, "/responses",
		providerfake.OK(providerfake.OpenAIResponse("resp_1", usage, providerfake.OpenAIToolSearchCall("tsc_1", "call_s1", query))),
		providerfake.OK(providerfake.OpenAIResponse("resp_2", usage, providerfake.OpenAIMessage("msg_1", "Done."))),
	)
	c, err := openai.New(openai.WithBaseURL(f.URL()), openai.WithAPIKey("k"), openai.WithHTTPClient(f.Client()), openai.WithMaxRetries(0), openai.WithModel("gpt-5.4"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return f
}

// openAILoaded: the tools the tool_search_output items of the follow-up
// request's input load.
func openAILoaded(_, next map[string]any) []string {
	var out []string
	for _, it := range next["input"].([]any) {
		m := it.(map[string]any)
		if m["type"] != "tool_search_output" {
			continue
		}
		ts, _ := m["tools"].([]any)
		for _, t := range ts {
			out = append(out, t.(map[string]any)["name"].(string))
		}
	}
	return out
}

// Anthropic Messages (message objects with a tool_use of the client-side
// search tool).
func runAnthropic(t *testing.T, req *model.Request, query string) *providerfake.Server {
	t.Helper()
	q, _ := json.Marshal(map[string]string{"query": query})
	f := providerfake.New(t, "/v1/messages",
		providerfake.OK(providerfake.AnthropicMessage("msg_1", "tool_use", usage, providerfake.AnthropicToolUse("toolu_s1", anthropic.DefaultClientSearchToolName, string(q)))),
		providerfake.OK(providerfake.AnthropicMessage("msg_2", "end_turn", usage, providerfake.AnthropicText("Done."))),
	)
	c, err := anthropic.New(anthropic.WithBaseURL(f.URL()), anthropic.WithAPIKey("k"), anthropic.WithModel("claude-sonnet-4-5"),
		anthropic.WithMaxRetries(0), anthropic.WithSearch(anthropic.SearchClient))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return f
}

// anthropicLoaded: the tool_reference blocks of the follow-up request's
// messages.
func anthropicLoaded(_, next map[string]any) []string {
	var out []string
	for _, m := range next["messages"].([]any) {
		blocks, _ := m.(map[string]any)["content"].([]any)
		for _, b := range blocks {
			if b := b.(map[string]any); b["type"] == "tool_result" {
				inner, _ := b["content"].([]any)
				for _, c := range inner {
					if c := c.(map[string]any); c["type"] == "tool_reference" {
						out = append(out, c["tool_name"].(string))
					}
				}
			}
		}
	}
	return out
}

// coreAnswer is what the discovery core answers query on req by itself.
func coreAnswer(t *testing.T, req *model.Request, toolName, query string) discovery.Answer {
	t.Helper()
	e, err := discovery.New(discovery.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := e.Begin(req, toolName)
	if err != nil {
		t.Fatal(err)
	}
	return turn.SearchQuery(query)
}

func TestEveryProviderFindsTheSameToolsForTheSameQuery(t *testing.T) {
	queries := []string{
		"export a table to csv",
		"cancel a running export",
		"invoice",
		"index statistics",
		"startExport",
		"render a chart image",
	}
	for _, q := range queries {
		want := coreAnswer(t, sharedRequest(model.SearchNative), "tool_search", q)
		if want.Kind != discovery.Found {
			t.Fatalf("%q: the core finds nothing (%s): the test needs a query that finds tools", q, want.JSON)
		}
		var wantNames []string
		for _, d := range want.Tools {
			wantNames = append(wantNames, d.Name)
		}
		got := map[string][]string{}
		for _, m := range modes() {
			f := m.run(t, sharedRequest(m.search), q)
			got[m.name] = m.loaded(f.Body(0), f.Body(1))
		}
		// OpenAI and Anthropic answer in rank order; portable advertises
		// the found tools among the active ones, so compare it as a set.
		for _, name := range []string{"openai", "anthropic"} {
			if !slices.Equal(got[name], wantNames) {
				t.Errorf("%q: %s loaded %v, the core finds %v", q, name, got[name], wantNames)
			}
		}
		p, w := slices.Sorted(slices.Values(got["portable"])), slices.Sorted(slices.Values(wantNames))
		if !slices.Equal(p, w) {
			t.Errorf("%q: portable advertised %v, the core finds %v", q, got["portable"], wantNames)
		}
		t.Logf("%q: %v", q, wantNames)
	}
}

func TestEveryProviderTellsTheModelWhatASearchDidNotLoad(t *testing.T) {
	exhaustedReq := func(m model.SearchMode) *model.Request {
		req := sharedRequest(m)
		req.Search.Cap = 1
		req.Discovery = &model.DiscoveryState{Searches: 1}
		return req
	}
	for _, tc := range []struct {
		what  string
		req   func(model.SearchMode) *model.Request
		query string
		want  string
	}{
		{"budget exhausted", exhaustedReq, "export a table to csv", `{"error":"search-budget-exhausted","budgetCap":1}`},
		{"no match", sharedRequest, "zebra giraffe",
			string(coreAnswer(t, sharedRequest(model.SearchNative), "tool_search", "zebra giraffe").JSON)},
		// Three edits from sendInvoice: past the fuzzy name tier, so nothing
		// matches, but the answer names the tool the model almost named.
		{"no match, near a name", sharedRequest, "sndinvcie",
			string(coreAnswer(t, sharedRequest(model.SearchNative), "tool_search", "sndinvcie").JSON)},
	} {
		if tc.what == "no match, near a name" && !strings.Contains(tc.want, `"closest":["sendInvoice"`) {
			t.Fatalf("%s: the core's answer names no close tool: %s", tc.what, tc.want)
		}
		if !strings.Contains(tc.want, "No tool matched") && !strings.Contains(tc.want, "search-budget-exhausted") {
			t.Fatalf("%s: unexpected core answer %s", tc.what, tc.want)
		}
		for _, m := range modes() {
			f := m.run(t, tc.req(m.search), tc.query)
			next := f.Body(1)
			if got := m.loaded(f.Body(0), next); len(got) != 0 {
				t.Errorf("%s, %s: loaded %v", tc.what, m.name, got)
			}
			if !holdsString(next, tc.want) {
				raw, _ := json.Marshal(next)
				t.Errorf("%s, %s: the follow-up request does not tell the model %s:\n%s", tc.what, m.name, tc.want, raw)
			}
		}
	}
}

// holdsString reports whether a string value of the decoded JSON v equals
// s.
func holdsString(v any, s string) bool {
	switch v := v.(type) {
	case string:
		return v == s
	case []any:
		return slices.ContainsFunc(v, func(e any) bool { return holdsString(e, s) })
	case map[string]any:
		for _, e := range v {
			if holdsString(e, s) {
				return true
			}
		}
	}
	return false
}
