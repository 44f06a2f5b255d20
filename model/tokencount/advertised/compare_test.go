package advertised_test

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model/tokencount/advertised"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// TestWorkspaceGolden pins what advertising the shipped workspace catalog
// costs with each adapter: every tool inline, every tool deferred, and
// openTable, applyFilter and runQuery inline with the other 35 deferred
// (the split of docs/benchmarks.md). A change to what an adapter sends —
// a search tool's description, the order of the tools, a wire name, the
// SDK's encoding — changes these figures: update them, and the table in
// docs/benchmarks.md, deliberately.
func TestWorkspaceGolden(t *testing.T) {
	golden := map[advertised.Provider][3]int{
		advertised.ProviderOpenAI:    {5549, 84, 632},
		advertised.ProviderAnthropic: {5304, 25, 552},
	}
	c := workspace(t)
	for _, p := range advertised.Providers() {
		shapes, err := advertised.CompareFor(p, c.Tools, workspaceSplit, advertised.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(shapes) != 3 {
			t.Fatalf("%s: shapes = %+v", p, shapes)
		}
		want := golden[p]
		for i, name := range []string{advertised.ShapeAllInline, advertised.ShapeSearchOnly, advertised.ShapeSplit} {
			if shapes[i].Name != name || shapes[i].Tokens != want[i] {
				t.Errorf("%s %s: %+v, want %d tokens", p, name, shapes[i], want[i])
			}
		}
		if s := shapes[2]; s.Inline != 3 || s.Deferred != len(c.Tools)-3 {
			t.Errorf("%s split: %+v", p, s)
		}
		if s := shapes[0]; s.Inline != len(c.Tools) || s.Deferred != 0 {
			t.Errorf("%s all inline: %+v", p, s)
		}
		// Each figure is Tokens of the catalog's definitions.
		for i, inline := range []func(string) bool{nil, only(), workspaceSplit} {
			n, err := advertised.Tokens(p, definitions(t, c.Tools, inline), advertised.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n != shapes[i].Tokens {
				t.Errorf("%s %s: CompareFor says %d, Tokens %d", p, shapes[i].Name, shapes[i].Tokens, n)
			}
		}
	}
}

// TestSearchOnlyIsTheSearchTool checks that deferring every tool leaves
// the search tool alone in what the model sees.
func TestSearchOnlyIsTheSearchTool(t *testing.T) {
	c := workspace(t)
	for _, p := range advertised.Providers() {
		tool, name, err := advertised.SearchTool(p, advertised.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sent, err := advertised.Render(p, definitions(t, c.Tools, only()), advertised.Options{})
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := advertised.Loaded(p, sent)
		if err != nil {
			t.Fatal(err)
		}
		if string(loaded) != "["+string(tool)+"]" {
			t.Errorf("%s: search-only loads %s, want the search tool %s alone", p, loaded, tool)
		}
		if want := map[advertised.Provider]string{advertised.ProviderOpenAI: "tool_search", advertised.ProviderAnthropic: "tool_search_tool_bm25"}[p]; name != want {
			t.Errorf("%s: search tool %q, want %q", p, name, want)
		}
	}
}

func TestCompareWithoutSplit(t *testing.T) {
	shapes, err := advertised.CompareFor(advertised.ProviderOpenAI, workspace(t).Tools, nil, advertised.Options{})
	if err != nil || len(shapes) != 2 || shapes[0].Name != advertised.ShapeAllInline || shapes[1].Name != advertised.ShapeSearchOnly {
		t.Errorf("CompareFor(nil split) = %+v, %v", shapes, err)
	}
}

// TestDefinitionsAreTheCatalogs checks that the definitions come from the
// runtime's catalog: its wire names (bare tool names unless two tools
// share one), ident order, deferred flags with search documents.
func TestDefinitionsAreTheCatalogs(t *testing.T) {
	list := []catalogfile.Tool{
		{Name: "workspace.openTable", Description: "Open a table.", InputSchema: []byte(`{"type":"object"}`)},
		{Name: "files.read", InputSchema: []byte(`{"type":"object"}`)},
		{Name: "docs.read", InputSchema: []byte(`{"type":"object"}`)},
		{Name: "ping", InputSchema: []byte(`{"type":"object"}`), Keywords: []string{"health"}},
	}
	defs, err := advertised.Definitions(list, only("workspace.openTable"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range defs {
		entry := string(d.Ident) + "=" + d.Name
		if d.Deferred {
			entry += "(deferred)"
			if d.Search == nil || d.Search.Name != string(d.Ident) {
				t.Errorf("%s: search document %+v", d.Ident, d.Search)
			}
		}
		got = append(got, entry)
	}
	want := "catalog.ping=ping(deferred) docs.read=docs_read(deferred) files.read=files_read(deferred) workspace.openTable=openTable"
	if strings.Join(got, " ") != want {
		t.Errorf("definitions = %s\nwant %s", strings.Join(got, " "), want)
	}
	if advertised.Ident("ping") != "catalog.ping" || advertised.Ident("a.b.c") != "a.b.c" {
		t.Errorf("Ident: %s, %s", advertised.Ident("ping"), advertised.Ident("a.b.c"))
	}
	for _, bad := range [][]catalogfile.Tool{
		{{Name: "open table", InputSchema: []byte(`{}`)}},
		{{Name: "ping", InputSchema: []byte(`{}`)}, {Name: "catalog.ping", InputSchema: []byte(`{}`)}},
	} {
		if _, err := advertised.Definitions(bad, nil); err == nil {
			t.Errorf("Definitions(%+v) succeeded", bad)
		}
	}
}
