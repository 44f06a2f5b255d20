package codegen_test

import (
	"os"
	"path/filepath"
	"testing"

	goacodegen "goa.design/goa/v3/codegen"
	. "goa.design/goa/v3/dsl"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/codegen"
	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/dsl/dsltest"
	"github.com/quiver-go/quiver/expr"
)

// recordsDesign is the representative design of the golden tests: a local
// toolset exercising every mapped feature, a registry-backed toolset,
// whose tools come from the registry at run time: it generates no package,
// the client settings of its registry (corp), and a registry with no
// credential under another API version (public).
func recordsDesign() {
	var Table = Type("Table", func() {
		Description("A table of the workspace.")
		Attribute("name", String, "Table name")
		Attribute("rows", Int, "Row count")
		Required("name")
	})
	Toolset("records", func() {
		Description("Work with the tables of a data workspace.")
		Tags("data")
		Tool("listTables", "List the tables of the workspace.", func() {
			Args(func() {
				Attribute("query", String, "Filter on the table name")
				Attribute("cursor", String, "Page cursor")
				Attribute("limit", Int, "Maximum tables to return", func() {
					Minimum(1)
					Maximum(100)
					Default(20)
				})
			})
			Return(func() {
				Attribute("tables", ArrayOf(Table), "The tables")
				Required("tables")
			})
			Keywords("catalog", "schema")
			Exposure("read_only")
			BoundedResult(func() {
				Cursor("cursor")
				NextCursor("next_cursor")
			})
			CallHintTemplate("Listing tables")
			ServerData("ui.table_list", ArrayOf(String), func() { AudienceInternal() })
		})
		Tool("delete_table", "Delete a table and its rows.", func() {
			Title("Drop table")
			Tags("destructive")
			Args(func() {
				Attribute("name", String, "Table to delete", func() { Example("orders") })
				Attribute("session_id", String)
				Attribute("tenant", String)
				Required("name", "session_id", "tenant")
				Example(map[string]any{"name": "orders", "session_id": "s1", "tenant": "acme"})
			})
			Return(Table)
			Inject("session_id", "tenant")
			Confirmation(func() {
				Title("Delete a table")
				PromptTemplate("Delete table {{ .name }}?")
			})
			ResultReminder("Tell the user the table is gone.")
		})
		Tool("finish", "End the conversation.", func() {
			TerminalRun()
			Meta("ui:hidden", "true")
		})
	})
	corpKey := APIKeySecurity("corp_key")
	corp := Registry("corp", func() {
		URL("https://registry.example.com")
		Security(corpKey)
		Timeout("30s")
		Retry(3, "500ms")
		SyncInterval("5m")
		CacheTTL("1h")
		Federation(func() {
			Include("data-*", "web-search")
			Exclude("data-experimental*")
		})
	})
	Toolset(FromRegistry(corp, "data-tools"))
	Registry("public", func() {
		URL("https://tools.example.org/registry")
		APIVersion("v2")
	})
}

// generate evaluates design and runs the plugin on it, returning the
// files it added and the warnings it printed.
func generate(t *testing.T, design func()) ([]*goacodegen.File, []string) {
	t.Helper()
	root, err := dsltest.Run(design)
	if err != nil {
		t.Fatalf("evaluate design: %v", err)
	}
	var warnings []string
	saved := codegen.Warnings
	codegen.Warnings = func(msg string) { warnings = append(warnings, msg) }
	defer func() { codegen.Warnings = saved }()
	files, err := codegen.Generate("example.com/app/gen", []eval.Root{goaexpr.Root, root}, nil)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return files, warnings
}

// render renders files under dir, returning their paths relative to dir.
func render(t *testing.T, dir string, files []*goacodegen.File) []string {
	t.Helper()
	var paths []string
	for _, f := range files {
		p, err := f.Render(dir)
		if err != nil {
			t.Fatalf("render %s: %v", f.Path, err)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.ToSlash(rel))
	}
	return paths
}

// mustRoot is expr.Root after a successful evaluation of design.
func mustRoot(t *testing.T, design func()) *expr.RootExpr {
	t.Helper()
	root, err := dsltest.Run(design)
	if err != nil {
		t.Fatalf("evaluate design: %v", err)
	}
	return root
}

// readFile returns the content of a file, failing the test when missing.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
