package codegen_test

import (
	"encoding/json"
	"go/format"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

// TestSearchDocumentsMatchRuntime checks that the literal search document of
// every generated spec is what search computes at run time for the same
// tool, rebuilt from the generated catalog file (model-facing schema) and
// the design's keywords.
func TestSearchDocumentsMatchRuntime(t *testing.T) {
	files, _ := generate(t, recordsDesign)
	root := mustRoot(t, recordsDesign)
	dir := t.TempDir()
	render(t, dir, files)
	pkg := filepath.Join(dir, "gen", "toolsets", "records")
	specs := string(readFile(t, filepath.Join(pkg, "specs.go")))
	cat, err := catalogfile.Load(filepath.Join(pkg, "tool_schemas.json"))
	if err != nil {
		t.Fatalf("tool_schemas.json does not read as a catalog file: %v", err)
	}
	ts := root.Toolset("records")
	if len(cat.Tools) != len(ts.Tools) {
		t.Fatalf("catalog has %d tools, design %d", len(cat.Tools), len(ts.Tools))
	}
	for i, tool := range ts.Tools {
		ct := cat.Tools[i]
		if ct.Name != string(tool.Ident()) || ct.Title != tool.Title {
			t.Errorf("catalog tool %d = %q %q, want %q %q", i, ct.Name, ct.Title, tool.Ident(), tool.Title)
		}
		spec := tools.ToolSpec{
			Name:        tool.Ident(),
			Title:       tool.Title,
			Description: tool.Description,
			Tags:        tools.InheritTags(ts.Tags, tool.Tags),
			Payload:     tools.TypeSpec{Schema: json.RawMessage(ct.InputSchema)},
		}
		want := gofmtExpr(t, search.NewDocument(spec.SearchSource(tool.Keywords...)).GoString())
		if !strings.Contains(specs, want+",\n") {
			t.Errorf("specs.go lacks the run-time search document of %s:\n%s", tool.Ident(), want)
		}
		if strings.Contains(string(ct.InputSchema), "session_id") {
			t.Errorf("catalog schema of %s shows an injected field: %s", tool.Ident(), ct.InputSchema)
		}
	}
}

// gofmtExpr returns a Go expression as gofmt prints it.
func gofmtExpr(t *testing.T, x string) string {
	t.Helper()
	src, err := format.Source([]byte("package p\n\nvar _ = " + x + "\n"))
	if err != nil {
		t.Fatalf("format %s: %v", x, err)
	}
	_, after, _ := strings.Cut(string(src), "var _ = ")
	return strings.TrimSpace(after)
}
