package tokencount_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/examples/catalogs"
	"github.com/quiver-go/quiver/model/tokencount"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func only(names ...string) func(string) bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return func(name string) bool { return set[name] }
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("%s differs\n got: %s\nwant: %s", path, got, want)
	}
}

func TestOpenAIResponsesToolsShape(t *testing.T) {
	c, err := catalogfile.Load("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		golden string
		inline func(string) bool
	}{
		{"all_inline.golden.json", nil},
		{"split.golden.json", only("openTable")},
		{"search_only.golden.json", only()},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := tokencount.OpenAIResponsesTools(c.Tools, tt.inline)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			golden(t, tt.golden, got)
		})
	}
}

func TestOpenAIResponsesToolsRejectsInvalidSchema(t *testing.T) {
	tools := []catalogfile.Tool{{Name: "a", InputSchema: json.RawMessage(`{`)}}
	if _, err := tokencount.OpenAIResponsesTools(tools, nil); err == nil {
		t.Fatal("no error for an invalid schema")
	}
}

func TestCount(t *testing.T) {
	n, err := tokencount.Count([]byte("hello world"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf(`Count("hello world") = %d, want 2`, n)
	}
	if n, err := tokencount.Count(nil); err != nil || n != 0 {
		t.Errorf("Count(nil) = %d, %v", n, err)
	}
}

func TestCompareWorkspace(t *testing.T) {
	c, err := catalogfile.Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile)
	if err != nil {
		t.Fatal(err)
	}
	split := only("workspace.openTable", "workspace.proposeOpenTable", "workspace.applyFilter", "workspace.runQuery", "workspace.describeTable", "workspace.listTables")
	first, err := tokencount.Compare(c.Tools, split)
	if err != nil {
		t.Fatal(err)
	}
	again, err := tokencount.Compare(c.Tools, split)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 3 {
		t.Fatalf("shapes = %+v", first)
	}
	for i := range first {
		if first[i] != again[i] {
			t.Errorf("not deterministic: %+v then %+v", first[i], again[i])
		}
		if first[i].Tokens <= 0 {
			t.Errorf("%s: %d tokens", first[i].Name, first[i].Tokens)
		}
	}
	all, searchOnly, chosen := first[0], first[1], first[2]
	if all.Name != tokencount.ShapeAllInline || searchOnly.Name != tokencount.ShapeSearchOnly || chosen.Name != tokencount.ShapeSplit {
		t.Errorf("shape names = %s, %s, %s", all.Name, searchOnly.Name, chosen.Name)
	}
	if !(all.Tokens >= chosen.Tokens && chosen.Tokens >= searchOnly.Tokens) {
		t.Errorf("want all-inline >= split >= search-only, got %d, %d, %d", all.Tokens, chosen.Tokens, searchOnly.Tokens)
	}
	if all.Inline != len(c.Tools) || all.Deferred != 0 || searchOnly.Inline != 0 || chosen.Inline != 6 || chosen.Deferred != len(c.Tools)-6 {
		t.Errorf("inline/deferred counts: %+v", first)
	}
	two, err := tokencount.Compare(c.Tools, nil)
	if err != nil || len(two) != 2 {
		t.Errorf("Compare(nil split) = %+v, %v", two, err)
	}
}

func TestAnthropicMessagesToolsShape(t *testing.T) {
	c, err := catalogfile.Load("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		golden string
		render func([]catalogfile.Tool, func(string) bool) ([]byte, error)
		inline func(string) bool
	}{
		{"anthropic_all_inline.golden.json", tokencount.AnthropicMessagesTools, nil},
		{"anthropic_split.golden.json", tokencount.AnthropicMessagesTools, only("openTable")},
		{"anthropic_search_only.golden.json", tokencount.AnthropicMessagesTools, only()},
		{"anthropic_split_loaded.golden.json", tokencount.AnthropicLoadedTools, only("openTable")},
		{"anthropic_search_only_loaded.golden.json", tokencount.AnthropicLoadedTools, only()},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := tt.render(c.Tools, tt.inline)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			golden(t, tt.golden, got)
		})
	}
}

// TestAnthropicLoadedIsRequestWithoutDeferred checks that the counted array
// is the request's array with exactly the deferred definitions removed.
func TestAnthropicLoadedIsRequestWithoutDeferred(t *testing.T) {
	c, err := catalogfile.Load("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, inline := range []func(string) bool{nil, only(), only("openTable"), only("openTable", "ping")} {
		sent, err := tokencount.AnthropicMessagesTools(c.Tools, inline)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := tokencount.AnthropicLoadedTools(c.Tools, inline)
		if err != nil {
			t.Fatal(err)
		}
		var sentItems, loadedItems []map[string]json.RawMessage
		if err := json.Unmarshal(sent, &sentItems); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(loaded, &loadedItems); err != nil {
			t.Fatal(err)
		}
		var want []map[string]json.RawMessage
		for _, item := range sentItems {
			if string(item["defer_loading"]) != "true" {
				want = append(want, item)
			}
		}
		if len(sentItems) < len(c.Tools) {
			t.Errorf("request has %d items for %d tools: %s", len(sentItems), len(c.Tools), sent)
		}
		gotJSON, _ := json.Marshal(loadedItems)
		wantJSON, _ := json.Marshal(want)
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("loaded = %s\nwant the request without deferred items: %s", gotJSON, wantJSON)
		}
	}
}

func TestAnthropicToolsRejectInvalidSchema(t *testing.T) {
	// A deferred tool is still sent, so its schema is checked too.
	tools := []catalogfile.Tool{
		{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "b", InputSchema: json.RawMessage(`{`)},
	}
	for _, render := range []func([]catalogfile.Tool, func(string) bool) ([]byte, error){tokencount.AnthropicMessagesTools, tokencount.AnthropicLoadedTools} {
		if _, err := render(tools, only("a")); err == nil || !strings.Contains(err.Error(), `tool "b"`) {
			t.Errorf("err = %v, want one naming tool \"b\"", err)
		}
	}
}

func TestCompareForAnthropicWorkspace(t *testing.T) {
	c, err := catalogfile.Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile)
	if err != nil {
		t.Fatal(err)
	}
	split := only("workspace.openTable", "workspace.applyFilter", "workspace.runQuery")
	first, err := tokencount.CompareFor(tokencount.ProviderAnthropic, c.Tools, split)
	if err != nil {
		t.Fatal(err)
	}
	again, err := tokencount.CompareFor(tokencount.ProviderAnthropic, c.Tools, split)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 3 {
		t.Fatalf("shapes = %+v", first)
	}
	for i := range first {
		if first[i] != again[i] {
			t.Errorf("not deterministic: %+v then %+v", first[i], again[i])
		}
	}
	all, searchOnly, chosen := first[0], first[1], first[2]
	if !(all.Tokens > chosen.Tokens && chosen.Tokens > searchOnly.Tokens && searchOnly.Tokens > 0) {
		t.Errorf("want all-inline > split > search-only > 0, got %d, %d, %d", all.Tokens, chosen.Tokens, searchOnly.Tokens)
	}
	if chosen.Inline != 3 || chosen.Deferred != len(c.Tools)-3 {
		t.Errorf("split = %+v", chosen)
	}
	// Each figure is the o200k_base count of the loaded array.
	for _, tt := range []struct {
		shape  tokencount.Shape
		inline func(string) bool
	}{{all, nil}, {searchOnly, only()}, {chosen, split}} {
		data, err := tokencount.AnthropicLoadedTools(c.Tools, tt.inline)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tokencount.Count(data)
		if err != nil {
			t.Fatal(err)
		}
		if tt.shape.Tokens != want {
			t.Errorf("%s: %d tokens, want %d", tt.shape.Name, tt.shape.Tokens, want)
		}
	}
	// The search tool alone: [{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}].
	alone, err := tokencount.Count([]byte(`[{"type":"` + tokencount.AnthropicSearchToolType + `","name":"` + tokencount.AnthropicSearchToolName + `"}]`))
	if err != nil || searchOnly.Tokens != alone {
		t.Errorf("search-only = %d, want the search tool's %d (%v)", searchOnly.Tokens, alone, err)
	}
	openai, err := tokencount.Compare(c.Tools, split)
	if err != nil {
		t.Fatal(err)
	}
	viaFor, err := tokencount.CompareFor(tokencount.ProviderOpenAI, c.Tools, split)
	if err != nil {
		t.Fatal(err)
	}
	for i := range openai {
		if openai[i] != viaFor[i] {
			t.Errorf("Compare and CompareFor(openai) differ: %+v, %+v", openai[i], viaFor[i])
		}
	}
}

func TestProviders(t *testing.T) {
	got := tokencount.Providers()
	if len(got) != 2 || got[0] != tokencount.ProviderOpenAI || got[1] != tokencount.ProviderAnthropic {
		t.Errorf("Providers() = %v", got)
	}
	if tokencount.ProviderOpenAI.Approximate() || !tokencount.ProviderAnthropic.Approximate() {
		t.Error("only the Anthropic count is an approximation")
	}
	_, err := tokencount.CompareFor("gemini", nil, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown provider "gemini"`) {
		t.Errorf("err = %v, want an unknown provider error", err)
	}
}
