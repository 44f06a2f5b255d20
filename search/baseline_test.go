package search

import (
	"math"
	"slices"
	"testing"
)

func TestBaselineFollowsItsDefinition(t *testing.T) {
	b := NewBaseline()
	// Doc a: "open table open a table" (5 tokens); doc b: "get_rows rows of a table" → "get rows rows of a table" (6 tokens).
	must(t, b.Add("open", "table open a table"))
	must(t, b.Add("get_rows", "rows of a table"))
	must(t, b.Add("noise", "unrelated words here"))
	hits := b.Search("Rows ROWS", 10)
	if len(hits) != 1 || hits[0].Name != "get_rows" {
		t.Fatalf("hits = %v, want only get_rows", hits)
	}
	// One unique query token "rows": N=3, df=1, avgdl=(5+6+4)/3 ("noise unrelated words here" is 4), tf=2, dl=6.
	n, df, avg, tf, dl := 3.0, 1.0, 15.0/3, 2.0, 6.0
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	want := idf * tf * 2.2 / (tf + 1.2*(1-0.75+0.75*dl/avg))
	if math.Abs(hits[0].Score-want) > 1e-12 {
		t.Fatalf("score = %v, want %v", hits[0].Score, want)
	}
}

func TestBaselineDoesNotSplitIdentifiersOrStem(t *testing.T) {
	b := NewBaseline()
	must(t, b.Add("startExport", "Begin exporting."))
	must(t, b.Add("start_export", "Begin an export."))
	if got := names(b.Search("start export", 10)); !slices.Equal(got, []string{"start_export"}) {
		t.Errorf("got %v: only the underscore name splits into start + export", got)
	}
	if got := names(b.Search("startexport", 10)); !slices.Equal(got, []string{"startExport"}) {
		t.Errorf("got %v: camelCase stays one lower-cased token", got)
	}
}

func TestBaselineTiesBreakByName(t *testing.T) {
	b := NewBaseline()
	for _, n := range []string{"c", "a", "b"} {
		must(t, b.Add(n, "same text"))
	}
	if got := names(b.Search("same", 2)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("got %v, want [a b]", got)
	}
	if err := b.Add("a", "again"); err == nil {
		t.Error("duplicate name accepted")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
