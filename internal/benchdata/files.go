package benchdata

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/search/eval"
)

// Files of the data folder, relative to Dir, in slash form.
const (
	MetaToolCatalogFile = "retrieval/metatool/catalog.json"
	MetaToolQueriesFile = "retrieval/metatool/queries.jsonl"
	LiveMCPCatalogFile  = "catalogs/livemcp.json"
	ToolSDKCatalogFile  = "catalogs/toolsdk.json"
)

// Tool is one tool of a catalog file
// ({"tools":[{"name","title","description","inputSchema","server"}]}).
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Server      string          `json:"server"`

	// Args are the top-level inputSchema properties, sorted by name.
	Args []search.Arg `json:"-"`
}

// Source returns the text every engine indexes for t: name, title,
// description, and the top-level argument names and descriptions.
func (t Tool) Source() search.Source {
	return search.Source{Name: t.Name, Title: t.Title, Description: t.Description, Args: t.Args}
}

// Path returns the absolute path of file (one of the *File constants), or
// fails tb when the data folder is absent.
func Path(tb testing.TB, file string) string {
	tb.Helper()
	return filepath.Join(Require(tb), filepath.FromSlash(file))
}

// Tools reads the tools of the catalog file, or fails tb. Names must be
// non-empty and unique.
func Tools(tb testing.TB, file string) []Tool {
	tb.Helper()
	path := Path(tb, file)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("catalog file: %v", err)
	}
	var f struct {
		Tools []Tool `json:"tools"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		tb.Fatalf("catalog file %s: want {\"tools\":[...]}: %v", path, err)
	}
	if len(f.Tools) == 0 {
		tb.Fatalf("catalog file %s: no tools", path)
	}
	seen := make(map[string]bool, len(f.Tools))
	for i := range f.Tools {
		t := &f.Tools[i]
		if t.Name == "" || seen[t.Name] {
			tb.Fatalf("catalog file %s: tool %d: name %q is empty or repeated", path, i, t.Name)
		}
		seen[t.Name] = true
		if t.Args, err = schemaArgs(t.InputSchema); err != nil {
			tb.Fatalf("catalog file %s: tool %q: %v", path, t.Name, err)
		}
	}
	return f.Tools
}

// schemaArgs returns the top-level properties of a JSON Schema object with
// their descriptions (empty when absent or not a string), sorted by name.
func schemaArgs(schema json.RawMessage) ([]search.Arg, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("inputSchema: %w", err)
	}
	args := make([]search.Arg, 0, len(s.Properties))
	for name, prop := range s.Properties {
		var p struct {
			Description any `json:"description"`
		}
		_ = json.Unmarshal(prop, &p) // a boolean schema has no description
		desc, _ := p.Description.(string)
		args = append(args, search.Arg{Name: name, Description: desc})
	}
	slices.SortFunc(args, func(a, b search.Arg) int { return strings.Compare(a.Name, b.Name) })
	return args, nil
}

// Queries reads the labelled MetaTool queries, or fails tb.
func Queries(tb testing.TB) []eval.Query {
	tb.Helper()
	path := Path(tb, MetaToolQueriesFile)
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("queries: %v", err)
	}
	defer f.Close()
	qs, err := eval.ReadQueries(f, path)
	if err != nil {
		tb.Fatal(err)
	}
	return qs
}

// Replicate returns n tools cycling through tools; the k-th copy (k >= 2)
// of a tool is renamed "<name>#k" so names stay unique.
func Replicate(tools []Tool, n int) []Tool {
	out := make([]Tool, n)
	for i := range out {
		t := tools[i%len(tools)]
		if k := i/len(tools) + 1; k > 1 {
			t.Name += "#" + strconv.Itoa(k)
		}
		out[i] = t
	}
	return out
}
