package tokencount_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
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
	split := only("openTable", "proposeOpenTable", "applyFilter", "runQuery", "describeTable", "listTables")
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
