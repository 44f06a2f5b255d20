package benchdata

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/quiver-go/quiver/internal/typos"
	"github.com/quiver-go/quiver/search/eval"
)

// TestTypoQueries checks, on all MetaTool queries, that TypoQueries is
// deterministic, keeps IDs and labels, leaves its input alone, and changes
// every query that has a word typos.Query may misspell, and no other.
func TestTypoQueries(t *testing.T) {
	queries := Queries(t)
	before := slices.Clone(queries)
	got := TypoQueries(queries)
	again := TypoQueries(queries)
	if len(got) != len(queries) {
		t.Fatalf("TypoQueries returned %d queries; want %d", len(got), len(queries))
	}
	changed, ineligible := 0, 0
	for i, q := range queries {
		g := got[i]
		if g.Query != again[i].Query {
			t.Fatalf("query %s: two runs misspelled %q as %q and %q; want the same", q.ID, q.Query, g.Query, again[i].Query)
		}
		if q.Query != before[i].Query {
			t.Fatalf("query %s: input text changed to %q", q.ID, q.Query)
		}
		if g.ID != q.ID || !slices.Equal(g.Relevant, q.Relevant) {
			t.Fatalf("query %d: got id %q labels %v; want %q %v", i, g.ID, g.Relevant, q.ID, q.Relevant)
		}
		switch eligible := hasEligibleWord(q.Query); {
		case eligible && g.Query == q.Query:
			t.Errorf("query %s %q: unchanged, yet it has a word of %d letters or more", q.ID, q.Query, typos.MinWordLen)
		case !eligible && g.Query != q.Query:
			t.Errorf("query %s %q: changed to %q, yet it has no word typos.Query misspells", q.ID, q.Query, g.Query)
		case g.Query != q.Query:
			changed++
		default:
			ineligible++
		}
	}
	if changed == 0 {
		t.Fatal("no query changed")
	}
	t.Logf("%d of %d queries misspelled, %d without an eligible word", changed, len(queries), ineligible)

	// The labels are copies: editing the result leaves the input alone.
	got[0].Relevant[0] = "edited"
	if queries[0].Relevant[0] == "edited" {
		t.Error("TypoQueries shares its labels with its input")
	}
}

// TestTypoQueriesFollowTheSeed pins the rule on a fixture: the result is
// typos.Query applied in order with one typos.New source.
func TestTypoQueriesFollowTheSeed(t *testing.T) {
	in := []eval.Query{
		{ID: "a", Query: "what is the weather like in Paris today", Relevant: []string{"WeatherTool"}},
		{ID: "b", Query: "to do it", Relevant: []string{"todo"}},
		{ID: "c", Query: "send an email to my team", Relevant: []string{"send_email"}},
	}
	r := typos.New()
	got := TypoQueries(in)
	for i, q := range in {
		want, _ := typos.Query(r, q.Query)
		if got[i].Query != want {
			t.Errorf("query %s: %q; want %q", q.ID, got[i].Query, want)
		}
	}
	if got[1].Query != "to do it" {
		t.Errorf("query without an eligible word became %q", got[1].Query)
	}
}

// hasEligibleWord reports whether q has a space-separated word of at least
// typos.MinWordLen runes, all letters (surrounding white space aside): the
// words typos.Query misspells, restated as the test's own yardstick.
func hasEligibleWord(q string) bool {
	for _, w := range strings.Split(q, " ") {
		w = strings.TrimSpace(w)
		if utf8.RuneCountInString(w) < typos.MinWordLen {
			continue
		}
		if strings.IndexFunc(w, func(c rune) bool { return !unicode.IsLetter(c) }) < 0 {
			return true
		}
	}
	return false
}
