package catalogs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/search/eval"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

func TestWorkspaceCatalog(t *testing.T) {
	c, err := catalogfile.Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Tools); n < 35 || n > 45 {
		t.Errorf("workspace has %d tools, want about 40", n)
	}
	for _, tool := range c.Tools {
		if !strings.HasPrefix(tool.Name, "workspace.") {
			t.Errorf("tool %q: want the ident workspace.<tool>", tool.Name)
		}
	}
	for _, tool := range c.Tools {
		src := tool.SearchSource()
		if tool.Title == "" || tool.Description == "" || len(src.Args) == 0 {
			t.Errorf("tool %q lacks a title, a description or arguments", tool.Name)
		}
		for _, a := range src.Args {
			if a.Description == "" {
				t.Errorf("tool %q argument %q has no description", tool.Name, a.Name)
			}
		}
	}
	for _, pair := range [][2]string{{"openTable", "proposeOpenTable"}, {"openWorkbench", "proposeOpenWorkbench"}, {"startExport", "proposeStartExport"}} {
		for _, name := range pair {
			name = "workspace." + name
			if _, ok := c.Lookup(name); !ok {
				t.Errorf("missing tool %q", name)
			}
		}
	}
}

// TestWorkspaceIsTheGeneratedCatalog keeps the catalog single-sourced:
// workspace.json must be the tool_schemas.json goa gen wrote for the records
// design, byte for byte (go:embed cannot reach the generated file itself).
func TestWorkspaceIsTheGeneratedCatalog(t *testing.T) {
	generated, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(catalogs.WorkspaceSource)))
	if err != nil {
		t.Fatalf("the generated catalog %s: %v (run goa gen on examples/records first)", catalogs.WorkspaceSource, err)
	}
	if !bytes.Equal(catalogs.Workspace(), generated) {
		t.Fatalf("%s differs from %s, its only source; never edit it by hand: run\n\tgo generate ./internal/catalogs", catalogs.WorkspaceFile, catalogs.WorkspaceSource)
	}
}

func TestWorkspaceQueries(t *testing.T) {
	c, err := catalogfile.Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := eval.ReadQueries(bytes.NewReader(catalogs.WorkspaceQueries()), catalogs.WorkspaceQueriesFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 25 {
		t.Errorf("%d queries, want about 30", len(qs))
	}
	for _, q := range qs {
		if unknown := c.Unknown(q.Relevant); len(unknown) > 0 {
			t.Errorf("query %s names tools not in the catalog: %v", q.ID, unknown)
		}
	}
}

func TestAccessorsReturnCopies(t *testing.T) {
	a := catalogs.Workspace()
	a[0] = 'X'
	if catalogs.Workspace()[0] == 'X' {
		t.Error("Workspace returned shared bytes")
	}
	q := catalogs.WorkspaceQueries()
	q[0] = 'X'
	if catalogs.WorkspaceQueries()[0] == 'X' {
		t.Error("WorkspaceQueries returned shared bytes")
	}
}
