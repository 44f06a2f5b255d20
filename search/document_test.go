package search

import (
	"errors"
	"go/parser"
	"strings"
	"testing"
)

func TestNewDocumentCountsTermsPerField(t *testing.T) {
	d := NewDocument(Source{
		Name:        "startExport",
		Aliases:     []string{"start_export", "startExport", ""},
		Title:       "Start export",
		Description: "Export a table; the export runs in the background.",
		Keywords:    []string{"csv", "download"},
		Args:        []Arg{{Name: "tableId", Description: "Table to export"}},
	})
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := d.Aliases; len(got) != 1 || got[0] != "start_export" {
		t.Errorf("aliases = %q, want [start_export] (empty and repeated names dropped)", got)
	}
	name := d.Fields[FieldName]
	if name.Length != 4 || len(name.Terms) != 2 || name.Terms[0] != (TermCount{"export", 2}) {
		t.Errorf("name field = %+v, want export×2 start×2", name)
	}
	desc := d.Fields[FieldDescription]
	if desc.Terms[0] != (TermCount{"background", 1}) || desc.Length != 5 {
		t.Errorf("description field = %+v", desc)
	}
	if d.Fields[FieldArgNames].Length != 2 || d.Fields[FieldKeywords].Length != 2 {
		t.Errorf("arg names %+v keywords %+v", d.Fields[FieldArgNames], d.Fields[FieldKeywords])
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	d := NewDocument(Source{Name: "x", Description: "alpha beta"})
	d.Analyzer = "other"
	d.Name = ""
	d.Aliases = []string{"a", "a"}
	d.Fields[FieldDescription].Terms = []TermCount{{"beta", 1}, {"alpha", 0}}
	err := d.Validate()
	if !errors.Is(err, ErrInvalidDocument) {
		t.Fatalf("err = %v, want ErrInvalidDocument", err)
	}
	for _, want := range []string{`analyzer is "other"`, "name is empty", `alias "a" is repeated`, "out of order", "has count 0", "length is 2 but counts sum to 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not report %q:\n%v", want, err)
		}
	}
}

func TestCloneIsIndependent(t *testing.T) {
	d := NewDocument(Source{Name: "x", Aliases: []string{"y"}, Description: "alpha beta"})
	c := d.Clone()
	c.Aliases[0] = "z"
	c.Fields[FieldDescription].Terms[0].Count = 9
	if d.Aliases[0] != "y" || d.Fields[FieldDescription].Terms[0].Count != 1 {
		t.Fatal("mutating a clone changed the original")
	}
	if !d.Equal(d.Clone()) || d.Equal(c) {
		t.Fatal("Equal disagrees with Clone")
	}
}

func TestGoStringIsAGoExpression(t *testing.T) {
	d := NewDocument(Source{Name: "records.search", Aliases: []string{"search"}, Title: `Say "hi"`, Description: "Find records\nfast", Args: []Arg{{Name: "q"}}})
	lit := d.GoString()
	if _, err := parser.ParseExpr(lit); err != nil {
		t.Fatalf("GoString is not a Go expression: %v\n%s", err, lit)
	}
	for _, want := range []string{`Name: "records.search"`, `Aliases: []string{"search"}`, `search.FieldTitle: {Length: 1`, `{Term: "search", Count: 2}`} {
		if !strings.Contains(lit, want) {
			t.Errorf("literal lacks %s:\n%s", want, lit)
		}
	}
}

func TestDocumentBuilderMatchesNewDocument(t *testing.T) {
	db := NewDocumentBuilder()
	srcs := []Source{
		{Name: "startExport", Title: "Start exporting", Description: "Exports tables; exporting runs in the background."},
		{Name: "exportStatus", Description: "Is the export done? Exported rows so far.", Keywords: []string{"export", "progress"}},
		{Name: "startExport2", Title: "Start exporting", Args: []Arg{{Name: "tableId", Description: "Table to export"}}},
	}
	for range 2 { // the second pass reads only memoized terms
		for _, s := range srcs {
			if got, want := db.Build(s), NewDocument(s); !got.Equal(want) {
				t.Fatalf("Build(%q) = %#v\nwant %#v", s.Name, got, want)
			}
		}
	}
}

// A document computed by the previous analyzer (quiver-en-1: no accent
// folding, no bigrams) is refused where it enters an index, with the
// command that regenerates it: its terms would silently mis-rank.
func TestIndexRefusesDocumentsOfThePreviousAnalyzer(t *testing.T) {
	doc := NewDocument(Source{Name: "weather.forecast", Description: "Météo du jour"})
	doc.Analyzer = "quiver-en-1"
	ix, err := NewIndex(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	err = ix.Add(doc)
	if err == nil || !errors.Is(err, ErrInvalidDocument) {
		t.Fatalf("Add(quiver-en-1 document) = %v, want ErrInvalidDocument", err)
	}
	for _, want := range []string{`analyzer is "quiver-en-1", want "quiver-2"`, "goa gen"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if ix.Len() != 0 {
		t.Errorf("the refused document was indexed")
	}
}
