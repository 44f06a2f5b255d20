package dsl_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/dsl/dsltest"
	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/tools"
)

func mustRun(t *testing.T, design func()) *expr.RootExpr {
	t.Helper()
	root, err := dsltest.Run(design)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func wantError(t *testing.T, design func(), fragments ...string) {
	t.Helper()
	_, err := dsltest.Run(design)
	if err == nil {
		t.Fatalf("the design evaluated; want an error containing %q", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error lacks %q:\n%v", f, err)
		}
	}
}

func TestToolsetAndToolsEvaluate(t *testing.T) {
	root := mustRun(t, func() {
		Toolset("docs.search", func() {
			Description("Search the docs.")
			Tags("docs")
			Tool("search", "Search indexed documentation", func() {
				Title("Document Search")
				Args(func() {
					Attribute("query", String, "Search phrase")
					Attribute("limit", Int, "Max results", func() { Default(5) })
					Required("query")
				})
				Return(func() {
					Attribute("documents", ArrayOf(String), "Matched snippets")
					Required("documents")
				})
				Tags("search")
				Keywords("lookup", "find")
				Exposure("read_only")
			})
			Tool("commit_task", "Commit the terminal task artifact", func() { TerminalRun() })
		})
	})
	ts := root.Toolset("docs.search")
	if ts == nil || ts.Description != "Search the docs." || !slices.Equal(ts.Tags, []string{"docs"}) {
		t.Fatalf("toolset = %+v", ts)
	}
	search := ts.Tool("search")
	if search.Title != "Document Search" || search.Args == nil || search.Return == nil || search.Exposure != tools.ExposureReadOnly {
		t.Fatalf("tool = %+v", search)
	}
	if search.Ident() != "docs.search.search" || !slices.Equal(search.Keywords, []string{"lookup", "find"}) {
		t.Fatalf("ident %q keywords %v", search.Ident(), search.Keywords)
	}
	commit := ts.Tool("commit_task")
	if commit.Title != "Commit task" || !commit.Bookkeeping {
		t.Fatalf("a terminal tool gets a humanized title and is bookkeeping: %+v", commit)
	}
}

func TestToolRules(t *testing.T) {
	t.Run("tool names have no dots", func(t *testing.T) {
		wantError(t, func() {
			Toolset("records", func() { Tool("records.search", "Search") })
		}, `invalid name "records.search"`, "without dots")
	})
	t.Run("a tool needs a description", func(t *testing.T) {
		wantError(t, func() {
			Toolset("records", func() { Tool("search") })
		}, `"search" has no description`)
	})
	t.Run("tool names are unique in a toolset", func(t *testing.T) {
		wantError(t, func() {
			Toolset("records", func() {
				Tool("search", "a")
				Tool("search", "b")
			})
		}, `"search" is declared twice`)
	})
	t.Run("exposure tiers", func(t *testing.T) {
		wantError(t, func() {
			Toolset("records", func() { Tool("search", "Search", func() { Exposure("public") }) })
		}, `Exposure: "public" is not a tier: want "read_only", "staging", "full" or "excluded"`)
	})
	for _, tier := range []tools.Exposure{tools.ExposureReadOnly, tools.ExposureStaging, tools.ExposureFull, tools.ExposureExcluded} {
		t.Run("exposure tier "+string(tier), func(t *testing.T) {
			root := mustRun(t, func() {
				Toolset("records", func() { Tool("search", "Search", func() { Exposure(string(tier)) }) })
			})
			if got := root.Toolset("records").Tool("search").Exposure; got != tier {
				t.Fatalf("Exposure(%q) set %q", tier, got)
			}
		})
	}
	for tier, meant := range map[string]string{"read": "read_only", "read-only": "read_only", "stage": "staging", "Full": "full", "": ""} {
		t.Run("exposure spelling "+tier, func(t *testing.T) {
			want := fmt.Sprintf("Exposure: %q is not a tier: want", tier)
			if meant != "" {
				want = fmt.Sprintf("Exposure: %q is not a tier: did you mean %q? want", tier, meant)
			}
			wantError(t, func() {
				Toolset("records", func() { Tool("search", "Search", func() { Exposure(tier) }) })
			}, want)
		})
	}
	t.Run("tool functions only in a tool", func(t *testing.T) {
		wantError(t, func() {
			Toolset("records", func() { TerminalRun() })
		}, "TerminalRun: must be used in a Tool")
	})
}

func TestHumanize(t *testing.T) {
	for in, want := range map[string]string{"startExport": "Start export", "start_export": "Start export", "HTTPServer": "Http server", "x": "X"} {
		if got := expr.Humanize(in); got != want {
			t.Errorf("Humanize(%q) = %q, want %q", in, got, want)
		}
	}
}
