package catalogfile_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools/catalogfile"
	"github.com/quiver-go/quiver/tools/contract"
)

func TestDeclarations(t *testing.T) {
	in := `[
  {"name": "workspace.openTable", "title": "Open table", "description": "Open it.", "keywords": ["grid"], "tags": ["tables"],
   "inputSchema": {"type": "object", "properties": {"table": {"type": "string"}}}},
  {"name": "ping"}
]`
	c, err := catalogfile.Read(strings.NewReader(in), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	decls, err := c.Declarations("workspace")
	if err != nil {
		t.Fatal(err)
	}
	if len(decls) != 2 {
		t.Fatalf("declarations = %+v", decls)
	}
	open, ping := decls[0], decls[1]
	if open.Toolset != "workspace" || open.Name != "openTable" || open.Title != "Open table" || open.Description != "Open it." ||
		strings.Join(open.Keywords, ",") != "grid" || strings.Join(open.Tags, ",") != "tables" {
		t.Errorf("openTable = %+v", open)
	}
	if ping.Toolset != "workspace" || ping.Name != "ping" || ping.Title != "ping" || string(ping.InputSchema) != `{"type":"object"}` {
		t.Errorf("ping = %+v: a tool without a dot joins the toolset, its title is its name", ping)
	}
	open.InputSchema[0] = 'X'
	if !json.Valid(c.Tools[0].InputSchema) {
		t.Error("a declaration shares its schema with the catalog")
	}
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "workspace", Tools: []contract.ToolDeclaration{decls[1]}})
	if err != nil || len(specs) != 1 || specs[0].Name != "workspace.ping" {
		t.Errorf("CompileToolset = %v, %v", specs, err)
	}
}

func TestDeclarationsErrors(t *testing.T) {
	c, err := catalogfile.ReadOptions{Lenient: true}.Read(strings.NewReader(`[{"name": "get weather"}, {"name": "a"}, {"name": "docs.a"}]`), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Declarations("docs")
	want := "catalogfile: x.json: tool \"get weather\": tools: ident \"docs.get weather\": tool name \"get weather\" contains whitespace: use '_' or '-' instead\n" +
		`tools "a" and "docs.a" both make the ident "docs.a": rename one`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if _, err := c.Declarations(""); err == nil || !strings.Contains(err.Error(), "the toolset name is empty") {
		t.Errorf("empty toolset: err = %v", err)
	}
}
