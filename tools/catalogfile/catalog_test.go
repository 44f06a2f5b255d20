package catalogfile_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools/catalogfile"
)

func TestSearchSource(t *testing.T) {
	c, err := catalogfile.Load("testdata/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	got := c.Tools[0].SearchSource()
	want := search.Source{
		Name:        "openTable",
		Title:       "Open table",
		Description: "Open a table in the main grid.",
		Keywords:    []string{"grid", "show", "tables"},
		Args: []search.Arg{
			{Name: "focusColumn"},
			{Name: "readOnly"}, // its description is not a string
			{Name: "table", Description: "Table name, e.g. orders."},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SearchSource()\n got: %#v\nwant: %#v", got, want)
	}
	if len(c.Tools[0].Keywords) != 2 {
		t.Errorf("SearchSource changed the tool's keywords: %q", c.Tools[0].Keywords)
	}
	if args := c.Tools[2].SearchSource().Args; args != nil {
		t.Errorf("tool without properties has args %v", args)
	}
}

func TestSearchSourceIgnoresNonObjectProperties(t *testing.T) {
	tool := catalogfile.Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"object","properties":[]}`)}
	if args := tool.SearchSource().Args; args != nil {
		t.Errorf("args = %v", args)
	}
}

func TestNewIndexAndBaseline(t *testing.T) {
	c, err := catalogfile.Load("testdata/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := c.NewIndex(search.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(c.Tools) {
		t.Errorf("index holds %d tools, want %d", ix.Len(), len(c.Tools))
	}
	if hits := ix.Search("openTable", 1); len(hits) != 1 || hits[0].Name != "openTable" || hits[0].Tier != search.TierExact {
		t.Errorf("index search = %+v", hits)
	}
	b, err := c.NewBaseline()
	if err != nil {
		t.Fatal(err)
	}
	if hits := b.Search("list the tables", 1); len(hits) != 1 || hits[0].Name != "listTables" {
		t.Errorf("baseline search = %+v", hits)
	}
}

// FuzzRead checks that Read never panics and that what it accepts keeps the
// package's invariants.
func FuzzRead(f *testing.F) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"name":"a","inputSchema":{"properties":{"x":{"description":"y"}}}}]`))
	f.Add([]byte(`{"tools":[{"name":"a"},{"name":"a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := catalogfile.Read(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		seen := make(map[string]bool)
		for _, tool := range c.Tools {
			if tool.Name == "" || seen[tool.Name] {
				t.Fatalf("empty or repeated name %q", tool.Name)
			}
			seen[tool.Name] = true
			var schema map[string]json.RawMessage
			if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
				t.Fatalf("tool %q schema is not an object: %v", tool.Name, err)
			}
			_ = tool.SearchSource()
		}
	})
}
