package catalogfile_test

import (
	"encoding/json"
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
			{Name: "readOnly"}, // it has no description
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

func TestSearchSourceIgnoresNonStringDescriptions(t *testing.T) {
	tool := catalogfile.Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"description":7}}}`)}
	if args := tool.SearchSource().Args; len(args) != 1 || args[0] != (search.Arg{Name: "x"}) {
		t.Errorf("args = %v", args)
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

// TestTakeIndexReleasesSchemasAndRanksTheSame: TakeIndex ranks like
// NewIndex (argument text included) and leaves no schema behind.
func TestTakeIndexReleasesSchemasAndRanksTheSame(t *testing.T) {
	c, err := catalogfile.Load("testdata/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	kept, err := c.NewIndex(search.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	taken, err := c.TakeIndex(search.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"focus column", "openTable", "orders table"} {
		if a, b := kept.Search(q, 5), taken.Search(q, 5); !reflect.DeepEqual(a, b) {
			t.Errorf("%q: NewIndex %v, TakeIndex %v", q, a, b)
		}
	}
	for _, tl := range c.Tools {
		if tl.InputSchema != nil {
			t.Fatalf("tool %q keeps its schema", tl.Name)
		}
	}
}
