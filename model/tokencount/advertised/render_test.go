package advertised_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/tokencount"
	"github.com/quiver-go/quiver/model/tokencount/advertised"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

func only(names ...string) func(string) bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return func(name string) bool { return set[name] }
}

// workspace reads the shipped catalog the way cmd/quiver does.
func workspace(t *testing.T) *catalogfile.Catalog {
	t.Helper()
	c, err := catalogfile.Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// workspaceSplit keeps three workspace tools inline, as docs/benchmarks.md
// does.
var workspaceSplit = only("workspace.openTable", "workspace.applyFilter", "workspace.runQuery")

// definitions builds the catalog's advertised definitions of a file.
func definitions(t *testing.T, list []catalogfile.Tool, inline func(string) bool) []model.ToolDefinition {
	t.Helper()
	defs, err := advertised.Definitions(list, inline)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// withExample returns the advertised definitions of a catalog holding one
// tool whose payload declares a root example, inline or deferred, and one
// inline tool without: the definitions carry Examples as the runtime's
// catalog fills them.
func withExample(t *testing.T, deferred bool) []model.ToolDefinition {
	t.Helper()
	payload, err := tools.NewTypeSpec("", json.RawMessage(`{"type":"object","properties":{"table":{"type":"string","description":"Table name."},"format":{"enum":["csv","xlsx"]}},"required":["table"],"additionalProperties":false,"example":{"table":"orders","format":"csv"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if payload, err = payload.WithExample(json.RawMessage(`{"table":"orders","format":"csv"}`)); err != nil {
		t.Fatal(err)
	}
	export := tools.ToolSpec{Name: "workspace.startExport", Title: "Start export", Description: "Export a table <as CSV> & more.", Payload: payload}
	export.Search = search.NewDocument(export.SearchSource("download"))
	ping := tools.ToolSpec{Name: "workspace.ping", Title: "Ping", Description: "Check that the workspace answers."}
	ping.Search = search.NewDocument(ping.SearchSource())
	c, err := catalog.New([]catalog.Entry{{Spec: export, Deferred: deferred}, {Spec: ping}}, catalog.Filter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.AdvertisedToolDefinitions()
}

// renderCase is one tools array to check against a fake server.
type renderCase struct {
	name string
	defs []model.ToolDefinition
	opts advertised.Options
	// want lists fragments the captured array must hold.
	want []string
}

func renderCases(t *testing.T, p advertised.Provider) []renderCase {
	small, err := catalogfile.Load("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	cases := []renderCase{
		{name: "all inline", defs: definitions(t, small.Tools, nil), want: []string{`"name":"openTable"`, `<now> & here`}},
		{name: "split", defs: definitions(t, small.Tools, only("openTable"))},
		{name: "search only", defs: definitions(t, small.Tools, only())},
		{name: "workspace all inline", defs: definitions(t, ws.Tools, nil)},
		{name: "workspace split", defs: definitions(t, ws.Tools, workspaceSplit), want: []string{`"name":"openTable"`}},
		{name: "example inline", defs: withExample(t, false)},
		{name: "example deferred", defs: withExample(t, true)},
		{name: "cache after tools", defs: definitions(t, small.Tools, only("openTable")), opts: advertised.Options{Cache: model.CacheCheckpoints{AfterTools: true}}},
	}
	switch p {
	case advertised.ProviderOpenAI:
		cases[1].want = []string{`"type":"tool_search"`, `"execution":"client"`}
	case advertised.ProviderAnthropic:
		// The SDK escapes <, > and & in strings, and puts input_schema
		// first: bytes that count.
		cases[0].want = []string{`{"input_schema":`, `\u003cnow\u003e \u0026 here`}
		cases[1].want = []string{`"defer_loading":true`, `"tool_search_tool_bm25_20251119"`}
		cases[5].want = []string{`"input_examples":[{"format":"csv","table":"orders"}]`}
		// With a search tool the schema keeps its example instead.
		cases[6].want = []string{`"example":{"table":"orders","format":"csv"}`}
		cases[7].want = []string{`"cache_control":{"type":"ephemeral"}`}
		cases = append(cases,
			renderCase{name: "regex search", defs: definitions(t, small.Tools, only("openTable")), opts: advertised.Options{AnthropicSearch: anthropic.SearchRegex}, want: []string{`"tool_search_tool_regex_20251119"`}},
			renderCase{name: "client search", defs: definitions(t, small.Tools, only("openTable")), opts: advertised.Options{AnthropicSearch: anthropic.SearchClient, Cache: model.CacheCheckpoints{AfterTools: true}}, want: []string{`"name":"` + anthropic.DefaultClientSearchToolName + `"`, `"cache_control"`}},
		)
	}
	return cases
}

// testCountsWhatTheAdapterSends checks, for each case, that the array
// advertised renders and counts is the one p's adapter sent to a local
// server, and that the token count is that of the captured array (its
// loaded part for Anthropic).
func testCountsWhatTheAdapterSends(t *testing.T, p advertised.Provider) {
	for _, tc := range renderCases(t, p) {
		t.Run(tc.name, func(t *testing.T) {
			captured := sendAndCapture(t, p, tc.defs, tc.opts)
			if len(captured) == 0 {
				t.Fatal("the request carried no tools array")
			}
			rendered, err := advertised.Render(p, tc.defs, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := compact(t, rendered), compact(t, captured); got != want {
				t.Fatalf("rendered tools differ from the request's\n got: %s\nwant: %s", got, want)
			}
			if !bytes.Equal(rendered, captured) {
				t.Errorf("rendered tools equal the request's only once compacted:\n got: %s\nwant: %s", rendered, captured)
			}
			for _, frag := range tc.want {
				if !strings.Contains(string(captured), frag) {
					t.Errorf("the request's tools lack %s: %s", frag, captured)
				}
			}
			loaded, err := advertised.Loaded(p, captured)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tokencount.Count(loaded)
			if err != nil {
				t.Fatal(err)
			}
			got, err := advertised.Tokens(p, tc.defs, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("Tokens = %d, want %d, the count of the captured array's loaded part %s", got, want, loaded)
			}
			if p == advertised.ProviderOpenAI || !model.HasDeferred(tc.defs) {
				whole, err := tokencount.Count(captured)
				if err != nil {
					t.Fatal(err)
				}
				if got != whole {
					t.Errorf("Tokens = %d, want %d, the count of the whole captured array", got, whole)
				}
			}
		})
	}
}

func TestOpenAICountsWhatTheAdapterSends(t *testing.T) {
	testCountsWhatTheAdapterSends(t, advertised.ProviderOpenAI)
}

func TestAnthropicCountsWhatTheAdapterSends(t *testing.T) {
	testCountsWhatTheAdapterSends(t, advertised.ProviderAnthropic)
}

// TestAnthropicLoadedDropsDeferred checks that the counted part of an
// Anthropic array is the array without its defer_loading elements, the
// others unchanged and in order.
func TestAnthropicLoadedDropsDeferred(t *testing.T) {
	defs := definitions(t, workspace(t).Tools, workspaceSplit)
	sent, err := advertised.Render(advertised.ProviderAnthropic, defs, advertised.Options{})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := advertised.Loaded(advertised.ProviderAnthropic, sent)
	if err != nil {
		t.Fatal(err)
	}
	var want []map[string]any
	for _, e := range elements(t, sent) {
		if e["defer_loading"] != true {
			want = append(want, e)
		}
	}
	got := elements(t, loaded)
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(got)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("loaded = %s\nwant the request without deferred items: %s", gotJSON, wantJSON)
	}
	if d := describe(got); d != "applyFilter, openTable, runQuery, tool_search_tool_bm25" {
		t.Errorf("loaded tools = %s", d)
	}
	if n := len(elements(t, sent)); n != len(defs)+1 {
		t.Errorf("the request has %d tools for %d definitions and the search tool", n, len(defs))
	}
	if same, err := advertised.Loaded(advertised.ProviderOpenAI, sent); err != nil || !bytes.Equal(same, sent) {
		t.Errorf("Loaded(openai) changed the array: %v", err)
	}
}

func TestUnknownProvider(t *testing.T) {
	for _, err := range []error{
		func() error { _, err := advertised.Render("gemini", nil, advertised.Options{}); return err }(),
		func() error { _, err := advertised.Loaded("gemini", nil); return err }(),
		func() error { _, err := advertised.CompareFor("gemini", nil, nil, advertised.Options{}); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), `unknown provider "gemini"`) {
			t.Errorf("err = %v, want an unknown provider error", err)
		}
	}
	got := advertised.Providers()
	if len(got) != 2 || got[0] != advertised.ProviderOpenAI || got[1] != advertised.ProviderAnthropic {
		t.Errorf("Providers() = %v", got)
	}
	if advertised.ProviderOpenAI.Approximate() || !advertised.ProviderAnthropic.Approximate() {
		t.Error("only the Anthropic count is an approximation")
	}
}
