package search

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

func newTestIndex(t testing.TB, srcs ...Source) *Index {
	t.Helper()
	ix, err := NewIndex(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range srcs {
		if err := ix.Add(NewDocument(s)); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

// workspace is a small catalog where the description words of other tools
// outscore the tool whose name is the query.
var workspace = []Source{
	{Name: "startExport", Description: "Begin an export job."},
	{Name: "exportStatus", Description: "Status of a start export job: did the export start, is the export done, export progress."},
	{Name: "start_export_legacy", Description: "Old start export endpoint for start export exports."},
	{Name: "openTable", Description: "Open a table in the workspace."},
	{Name: "proposeOpenTable", Description: "Suggest opening a table; the user clicks to open the table."},
	{Name: "records.search", Aliases: []string{"records_search", "search"}, Description: "Search records by text."},
}

func TestExactNameRanksFirst(t *testing.T) {
	ix := newTestIndex(t, workspace...)
	for _, s := range workspace {
		hits := ix.Search(s.Name, 3)
		if len(hits) == 0 || hits[0].Name != s.Name || hits[0].Tier != TierExact {
			t.Errorf("Search(%q) = %v, want %q first with tier exact", s.Name, hits, s.Name)
		}
	}
}

func TestAliasesMatchTheNameTiers(t *testing.T) {
	ix := newTestIndex(t, workspace...)
	for _, q := range []string{"records_search", "search", "records.search"} {
		hits := ix.Search(q, 3)
		if len(hits) == 0 || hits[0].Name != "records.search" || hits[0].Tier != TierExact {
			t.Errorf("Search(%q) = %v, want records.search first (exact)", q, hits)
		}
	}
}

func TestNameTiersOrder(t *testing.T) {
	ix := newTestIndex(t, workspace...)
	// "startexport" is a case-folded match of nothing exact; "start_export"
	// separator-folds to startExport and start_export_legacy does not.
	hits := ix.Search("STARTEXPORT", 5)
	if hits[0].Name != "startExport" || hits[0].Tier != TierCaseFolded {
		t.Fatalf("Search(STARTEXPORT) = %v, want startExport case-folded first", hits)
	}
	hits = ix.Search("start_export", 5)
	if hits[0].Name != "startExport" || hits[0].Tier != TierSeparatorFolded {
		t.Fatalf("Search(start_export) = %v, want startExport separator-folded first", hits)
	}
	for _, h := range hits[1:] {
		if h.Tier != TierScored {
			t.Errorf("hit %v: want only scored hits after the name match", h)
		}
	}
	// An exact match outranks a case-folded one of another tool.
	ix2 := newTestIndex(t, Source{Name: "Export"}, Source{Name: "export"})
	if got := names(ix2.Search("export", 2)); !slices.Equal(got, []string{"export", "Export"}) {
		t.Errorf("Search(export) = %v, want [export Export]", got)
	}
}

func TestScoredHitsPreferNameAndDescriptionMatches(t *testing.T) {
	ix := newTestIndex(t, workspace...)
	hits := ix.Search("open the table please", 3)
	if len(hits) < 2 || hits[0].Name != "openTable" {
		t.Fatalf("got %v, want openTable first", hits)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i-1].Score < hits[i].Score {
			t.Errorf("hits not sorted by score: %v", hits)
		}
	}
}

func TestTiesBreakByNameWhateverTheInsertionOrder(t *testing.T) {
	var srcs []Source
	for i := range 30 {
		srcs = append(srcs, Source{Name: fmt.Sprintf("tool%02d", i), Description: "same words for every tool"})
	}
	want := names(newTestIndex(t, srcs...).Search("same words", 30))
	if !slices.IsSorted(want) || len(want) != 30 {
		t.Fatalf("equal scores must be ordered by name, got %v", want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		rng.Shuffle(len(srcs), func(i, j int) { srcs[i], srcs[j] = srcs[j], srcs[i] })
		ix := newTestIndex(t, srcs...)
		for range 3 {
			if got := names(ix.Search("same words", 30)); !slices.Equal(got, want) {
				t.Fatalf("order changed with insertion order: %v, want %v", got, want)
			}
		}
		if got := names(ix.Search("same words", 7)); !slices.Equal(got, want[:7]) {
			t.Fatalf("limit 7: %v, want %v", got, want[:7])
		}
	}
}

func TestLimit(t *testing.T) {
	ix := newTestIndex(t, workspace...)
	if got := len(ix.Search("export", 2)); got != 2 {
		t.Errorf("limit 2 returned %d hits", got)
	}
	if got := len(ix.Search("export table search", 0)); got > DefaultLimit {
		t.Errorf("limit 0 returned %d hits, want at most %d", got, DefaultLimit)
	}
	if hits := ix.Search("zzzz nothing matches", 5); len(hits) != 0 {
		t.Errorf("no shared term: got %v", hits)
	}
}

func TestAddReplaceRemove(t *testing.T) {
	ix := newTestIndex(t, workspace...)
	if err := ix.Add(NewDocument(workspace[0])); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second Add of %q: err = %v, want ErrDuplicate", workspace[0].Name, err)
	}
	if !ix.Remove("openTable") || ix.Remove("openTable") {
		t.Fatal("Remove must report true once, then false")
	}
	if slices.Contains(names(ix.Search("open table", 10)), "openTable") || ix.Has("openTable") {
		t.Fatal("removed document still found")
	}
	if hits := ix.Search("openTable", 10); len(hits) > 0 && hits[0].Tier == TierExact {
		t.Fatalf("removed document still matches its name: %v", hits)
	}
	if err := ix.Replace(NewDocument(Source{Name: "startExport", Description: "Launch a spreadsheet download."})); err != nil {
		t.Fatal(err)
	}
	if hits := ix.Search("spreadsheet download", 1); len(hits) != 1 || hits[0].Name != "startExport" {
		t.Fatalf("replaced document not found by its new text: %v", hits)
	}
	if slices.Contains(names(ix.Search("begin job", 10)), "startExport") {
		t.Fatal("replaced document still found by its old text")
	}
	if ix.Len() != len(workspace)-1 {
		t.Fatalf("Len = %d, want %d", ix.Len(), len(workspace)-1)
	}
}

func TestRemoveThenAddMatchesFreshIndex(t *testing.T) {
	// Churn must leave no trace: the same documents give the same hits and
	// scores as an index built once.
	fresh := newTestIndex(t, workspace...)
	churned := newTestIndex(t, workspace...)
	for _, s := range workspace {
		churned.Remove(s.Name)
	}
	for i := len(workspace) - 1; i >= 0; i-- {
		if err := churned.Add(NewDocument(workspace[i])); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"export", "open table", "search records", "startExport"} {
		a, b := fresh.Search(q, 10), churned.Search(q, 10)
		if !slices.Equal(a, b) {
			t.Errorf("query %q: fresh %v, churned %v", q, a, b)
		}
	}
}

func TestIndexRejectsInvalidDocuments(t *testing.T) {
	ix := newTestIndex(t)
	stale := NewDocument(Source{Name: "x", Description: "words"})
	stale.Analyzer = "quiver-en-0"
	if err := ix.Add(stale); !errors.Is(err, ErrInvalidDocument) || !strings.Contains(err.Error(), "regenerate") {
		t.Errorf("stale analyzer: err = %v", err)
	}
	if ix.Len() != 0 {
		t.Error("a rejected document was indexed")
	}
}

func TestConcurrentSearchesDuringWrites(t *testing.T) {
	ix := newTestIndex(t, workspace...)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				hits := ix.Search("startExport", 5)
				if len(hits) == 0 || hits[0].Name != "startExport" {
					t.Errorf("concurrent search lost the exact match: %v", hits)
					return
				}
			}
		})
	}
	for i := range 300 {
		name := fmt.Sprintf("churn%d", i%7)
		if err := ix.Replace(NewDocument(Source{Name: name, Description: "start export churn"})); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			ix.Remove(name)
		}
	}
	close(stop)
	wg.Wait()
}

func TestNewIndexRejectsBadParams(t *testing.T) {
	p := DefaultParams()
	p.K1 = 0
	p.B[FieldTitle] = 2
	p.Weights = [NumFields]float64{}
	_, err := NewIndex(p)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"k1", "b[title]", "every field weight is 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func FuzzSearch(f *testing.F) {
	for _, q := range []string{"startExport", "START_EXPORT", "open table", "", " ", "\xff", "records.search"} {
		f.Add(q)
	}
	ix := newTestIndex(f, workspace...)
	f.Fuzz(func(t *testing.T, q string) {
		hits := ix.Search(q, 4)
		if len(hits) > 4 {
			t.Fatalf("%d hits for limit 4", len(hits))
		}
		seen := map[string]bool{}
		for i, h := range hits {
			if seen[h.Name] {
				t.Fatalf("duplicate hit %q", h.Name)
			}
			seen[h.Name] = true
			if i > 0 && hits[i-1].Tier > h.Tier {
				t.Fatalf("tiers out of order: %v", hits)
			}
		}
	})
}

// TestDocumentIsRebuiltExactly: the index keeps no copy of a document's
// terms, and still returns every document exactly as added, after churn.
func TestDocumentIsRebuiltExactly(t *testing.T) {
	long := Source{Name: "long", Aliases: []string{"long_tool"}, Title: "Long tool",
		Description: strings.Repeat("export export table ", 300), Keywords: []string{"csv", "csv"},
		Args: []Arg{{Name: "table", Description: "the table to export"}}}
	srcs := append(slices.Clone(workspace), long)
	ix := newTestIndex(t, srcs...)
	ix.Remove("openTable")
	if err := ix.Replace(NewDocument(Source{Name: "startExport", Description: "Launch a download."})); err != nil {
		t.Fatal(err)
	}
	for _, s := range srcs {
		want := NewDocument(s)
		switch s.Name {
		case "openTable":
			if _, ok := ix.Document(s.Name); ok {
				t.Fatal("a removed document is still returned")
			}
			continue
		case "startExport":
			want = NewDocument(Source{Name: "startExport", Description: "Launch a download."})
		}
		got, ok := ix.Document(s.Name)
		if !ok || !got.Equal(want) {
			t.Fatalf("Document(%q)\n got %#v\nwant %#v", s.Name, got, want)
		}
	}
}
