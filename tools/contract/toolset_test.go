package contract

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools"
)

func docsToolset() ToolsetDeclaration {
	schema := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"cursor":{"type":"string"}}}`)
	return ToolsetDeclaration{
		Name: "docs", Description: "Documentation tools", Tags: []string{"docs", "read"}, Version: "1.2.3",
		Tools: []ToolDeclaration{
			{Name: "search", Title: "Search", Tags: []string{"search", "read"}, InputSchema: schema,
				Bounds: &tools.BoundsSpec{ContinueWith: "next_page"}},
			{Toolset: "docs", Name: "next_page", Title: "Next page", InputSchema: schema, Bounds: &tools.BoundsSpec{Cursor: "cursor"}},
		},
	}
}

func TestCompileToolset(t *testing.T) {
	specs, err := CompileToolset(docsToolset())
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].Name != "docs.search" || specs[1].Name != "docs.next_page" {
		t.Fatalf("specs = %v", specs)
	}
	if want := []string{"docs", "read", "search"}; !slices.Equal(specs[0].Tags, want) {
		t.Errorf("inherited tags = %q, want %q", specs[0].Tags, want)
	}
	if want := []string{"docs", "read"}; !slices.Equal(specs[1].Tags, want) {
		t.Errorf("inherited tags = %q, want %q", specs[1].Tags, want)
	}
}

func TestCompileToolsetRejects(t *testing.T) {
	cases := []struct {
		rule   string
		mutate func(*ToolsetDeclaration)
		want   string
		is     error
	}{
		{"tool names are unique", func(ts *ToolsetDeclaration) { ts.Tools = append(ts.Tools, ts.Tools[0]) }, `duplicate tool "search"`, ErrDuplicateTool},
		{"tools belong to their toolset", func(ts *ToolsetDeclaration) { ts.Tools[1].Toolset = "web" }, `declares toolset "web"`, nil},
		{"continuations name a tool of the set", func(ts *ToolsetDeclaration) { ts.Tools[0].Bounds.ContinueWith = "more" }, `continues with "more"`, nil},
		{"the toolset is named", func(ts *ToolsetDeclaration) { ts.Name = ""; ts.Tools[1].Toolset = "" }, "toolset name is empty", nil},
		{"every tool is compiled", func(ts *ToolsetDeclaration) { ts.Tools[0].Title = ""; ts.Tools[1].Title = "" }, "docs.next_page", ErrInvalidDeclaration},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			ts := docsToolset()
			tc.mutate(&ts)
			specs, err := CompileToolset(ts)
			if err == nil || specs != nil {
				t.Fatalf("CompileToolset = %v, %v", specs, err)
			}
			if !strings.HasPrefix(err.Error(), "contract: toolset") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant it to mention %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want it to wrap %v", err, tc.is)
			}
		})
	}
}
