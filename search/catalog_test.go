package search_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/shareddata"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/search/eval"
)

// Paths of the shared benchmark data, relative to shareddata.Dir.
const (
	metaToolCatalog = "retrieval/metatool/catalog.json"
	metaToolQueries = "retrieval/metatool/queries.jsonl"
	liveMCPCatalog  = "catalogs/livemcp.json"
	toolSDKCatalog  = "catalogs/toolsdk.json"
)

// catalogTool is one tool of a shared catalog file
// ({"tools":[{"name","title","description","inputSchema","server"}]}).
type catalogTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Server      string          `json:"server"`

	// args are the top-level inputSchema properties, sorted by name.
	args []search.Arg
}

// source returns the text every engine indexes for t: name, title,
// description, and the top-level argument names and descriptions.
func (t catalogTool) source() search.Source {
	return search.Source{Name: t.Name, Title: t.Title, Description: t.Description, Args: t.args}
}

// loadCatalog reads the catalog at rel under the shared data folder, or
// skips tb when the data is absent. Names must be non-empty and unique.
func loadCatalog(tb testing.TB, rel string) []catalogTool {
	tb.Helper()
	path := filepath.Join(shareddata.Require(tb), rel)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("catalog: %v", err)
	}
	var file struct {
		Tools []catalogTool `json:"tools"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		tb.Fatalf("catalog %s: want {\"tools\":[...]}: %v", path, err)
	}
	if len(file.Tools) == 0 {
		tb.Fatalf("catalog %s: no tools", path)
	}
	seen := make(map[string]bool, len(file.Tools))
	for i := range file.Tools {
		t := &file.Tools[i]
		if t.Name == "" || seen[t.Name] {
			tb.Fatalf("catalog %s: tool %d: name %q is empty or repeated", path, i, t.Name)
		}
		seen[t.Name] = true
		if t.args, err = schemaArgs(t.InputSchema); err != nil {
			tb.Fatalf("catalog %s: tool %q: %v", path, t.Name, err)
		}
	}
	return file.Tools
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

// loadQueries reads the MetaTool queries, or skips tb when the data is
// absent.
func loadQueries(tb testing.TB) []eval.Query {
	tb.Helper()
	path := filepath.Join(shareddata.Require(tb), metaToolQueries)
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

// replicate returns n tools cycling through tools; the k-th copy (k >= 2)
// of a tool is renamed "<name>#k" so names stay unique.
func replicate(tools []catalogTool, n int) []catalogTool {
	out := make([]catalogTool, n)
	for i := range out {
		t := tools[i%len(tools)]
		if k := i/len(tools) + 1; k > 1 {
			t.Name += "#" + strconv.Itoa(k)
		}
		out[i] = t
	}
	return out
}

// newQuiverIndex indexes tools in a default Index.
func newQuiverIndex(tb testing.TB, tools []catalogTool) *search.Index {
	tb.Helper()
	ix, err := search.NewIndex(search.DefaultParams())
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range tools {
		if err := ix.Add(search.NewDocument(t.source())); err != nil {
			tb.Fatal(err)
		}
	}
	return ix
}

// newBaseline indexes tools' names and descriptions in a Baseline.
func newBaseline(tb testing.TB, tools []catalogTool) *search.Baseline {
	tb.Helper()
	b := search.NewBaseline()
	for _, t := range tools {
		if err := b.Add(t.Name, t.Description); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}
