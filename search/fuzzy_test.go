package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// web is a catalog of near names: two tools one edit apart, and a tool
// whose part after the server prefix is a name of its own.
var web = []Source{
	{Name: "fetch_webpage", Description: "Fetch a web page and return its text."},
	{Name: "fetch_webpages", Description: "Fetch several web pages at once."},
	{Name: "bing_search", Description: "Search the web with Bing."},
	{Name: "browser.open_tab", Description: "Open a browser tab at a URL."},
	{Name: "get_weather", Title: "Weather", Description: "Current weather and forecasts for a city."},
	{Name: "send_email", Description: "Send an email message to one or more recipients."},
	{Name: "calendar.create_event", Description: "Create an event in the calendar."},
}

func TestFuzzyNameTierRanksAMisspelledNameFirst(t *testing.T) {
	ix := newTestIndex(t, web...)
	cases := []struct{ q, want string }{
		{"fetchewebpage", "fetch_webpage"}, // substitution of the separator
		{"bing_serch", "bing_search"},      // deletion
		{"bing_seacrh", "bing_search"},     // swap
		{"get_weatherr", "get_weather"},    // insertion
		{"opne_tab", "browser.open_tab"},   // a name part, misspelled
		{"sned_emial", "send_email"},       // two edits in a 9-rune name
		{"GetWeathr", "get_weather"},       // case and separators folded first
	}
	for _, c := range cases {
		hits := ix.Search(c.q, 5)
		if len(hits) == 0 || hits[0].Name != c.want || hits[0].Tier != TierFuzzyName {
			t.Errorf("Search(%q) = %v, want %q first with tier fuzzy-name", c.q, hits, c.want)
		}
	}
}

func TestFuzzyNameTierNeverOutranksANameMatch(t *testing.T) {
	ix := newTestIndex(t, web...)
	// fetch_webpage is exact; fetch_webpages is one edit from it but is not
	// offered as a correction of a name the query spells right.
	hits := ix.Search("fetch_webpage", 5)
	if len(hits) == 0 || hits[0].Name != "fetch_webpage" || hits[0].Tier != TierExact {
		t.Fatalf("Search(fetch_webpage) = %v", hits)
	}
	for _, h := range hits {
		if h.Tier == TierFuzzyName {
			t.Errorf("Search(fetch_webpage) has a fuzzy hit %v after an exact match", h)
		}
	}
}

func TestFuzzyNameTierRanksBothNamesOneEditAway(t *testing.T) {
	ix := newTestIndex(t, web...)
	// fetch_webpagez is one substitution from fetch_webpages and one
	// insertion from fetch_webpage: both rank, ahead of any scored hit.
	hits := ix.Search("fetch_webpagez", 5)
	if len(hits) < 2 {
		t.Fatalf("Search(fetch_webpagez) = %v, want both fetch tools", hits)
	}
	got := names(hits[:2])
	slices.Sort(got)
	if !slices.Equal(got, []string{"fetch_webpage", "fetch_webpages"}) || hits[0].Tier != TierFuzzyName || hits[1].Tier != TierFuzzyName {
		t.Errorf("Search(fetch_webpagez) = %v, want both fetch tools first, tier fuzzy-name", hits)
	}
}

func TestFuzzyNameTierPrefersNearerAndWholeNames(t *testing.T) {
	ix := newTestIndex(t,
		Source{Name: "execute-code", Description: "Run code."},
		Source{Name: "freecad.execute_code", Description: "Run FreeCAD macros."},
		Source{Name: "executes_codes", Description: "Run many."},
	)
	hits := ix.Search("exectue-code", 5)
	if want := []string{"execute-code", "freecad.execute_code", "executes_codes"}; !slices.Equal(names(hits), want) {
		t.Errorf("Search(exectue-code) = %v, want %v (whole name, then part, both one edit; then two edits)", hits, want)
	}
}

func TestFuzzyNameTierLeavesShortAndLongQueriesAlone(t *testing.T) {
	ix := newTestIndex(t, Source{Name: "ssh", Description: "Open a secure shell."}, Source{Name: "list_open_tabs", Description: "List tabs."})
	if hits := ix.Search("shs", 5); len(hits) != 0 {
		t.Errorf("Search(shs) = %v: three-rune names are not corrected", hits)
	}
	// Four words describe a task: no name is corrected, scoring decides.
	for _, h := range ix.Search("list the open tabz now", 5) {
		if h.Tier == TierFuzzyName {
			t.Errorf("a four-word query got a fuzzy name hit: %v", h)
		}
	}
}

func TestFuzzyNameTierFollowsRemovals(t *testing.T) {
	// Before the tier's index is built (it is built by the first search
	// reaching the tier), and after: removals and additions are seen.
	ix := newTestIndex(t, web...)
	ix.Remove("fetch_webpages")
	if hits := ix.Search("opne_tab", 1); len(hits) == 0 || hits[0].Name != "browser.open_tab" {
		t.Fatalf("Search(opne_tab) = %v", hits)
	}
	for _, h := range ix.Search("fetch_webpagez", 5) {
		if h.Name == "fetch_webpages" {
			t.Fatalf("a tool removed before the tier was built is found: %v", h)
		}
	}
	if !ix.Remove("bing_search") {
		t.Fatal("bing_search not indexed")
	}
	for _, h := range ix.Search("bing_serch", 5) {
		if h.Name == "bing_search" {
			t.Fatalf("a removed tool is still found: %v", h)
		}
	}
	if err := ix.Add(NewDocument(Source{Name: "bing_search", Description: "again"})); err != nil {
		t.Fatal(err)
	}
	if hits := ix.Search("bing_serch", 5); len(hits) == 0 || hits[0].Name != "bing_search" {
		t.Errorf("after adding it again, Search(bing_serch) = %v", hits)
	}
}

func TestMisspelledWordsMatchTheirTerms(t *testing.T) {
	ix := newTestIndex(t, web...)
	cases := []struct{ q, want string }{
		{"what is the wether in Paris", "get_weather"},
		{"send an emial to the team", "send_email"},
		{"add a meeting to my calender", "calendar.create_event"},
	}
	for _, c := range cases {
		hits := ix.Search(c.q, 5)
		if len(hits) == 0 || hits[0].Name != c.want || hits[0].Tier != TierScored {
			t.Errorf("Search(%q) = %v, want %q first, scored", c.q, hits, c.want)
		}
	}
	// A correction scores below the word spelled right.
	right, typo := ix.Search("weather", 1), ix.Search("wether", 1)
	if len(right) == 0 || len(typo) == 0 || !(typo[0].Score < right[0].Score) {
		t.Errorf("weather scored %v, wether %v: want the correction lower", right, typo)
	}
	// Four-rune words are not corrected: "emal" is as likely another word.
	if hits := ix.Search("emal", 5); len(hits) != 0 {
		t.Errorf("Search(emal) = %v, want nothing", hits)
	}
}

func TestAccentsAndScriptsMatch(t *testing.T) {
	ix := newTestIndex(t,
		Source{Name: "meteo_du_jour", Title: "Météo du jour", Description: "Prévisions météo pour une ville."},
		Source{Name: "天气查询", Description: "查询城市的天气预报"},
		Source{Name: "погода", Description: "Прогноз погоды"},
	)
	cases := []struct{ q, want string }{
		{"meteo", "meteo_du_jour"},
		{"MÉTÉO", "meteo_du_jour"},
		{"previsions", "meteo_du_jour"},
		{"天气", "天气查询"},
		{"城市天气", "天气查询"},
		{"Погода", "погода"},
	}
	for _, c := range cases {
		hits := ix.Search(c.q, 5)
		if len(hits) == 0 || hits[0].Name != c.want {
			t.Errorf("Search(%q) = %v, want %q first", c.q, hits, c.want)
		}
	}
	// The separator-folded name tier folds accents too.
	for _, q := range []string{"météo_du_jour", "MÉTÉO DU JOUR", "Me\u0301te\u0301oDuJour"} {
		hits := ix.Search(q, 1)
		if len(hits) == 0 || hits[0].Name != "meteo_du_jour" || hits[0].Tier != TierSeparatorFolded {
			t.Errorf("Search(%q) = %v, want meteo_du_jour, tier separator-folded", q, hits)
		}
	}
}

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"emial", "email", 1},
		{"ca", "abc", 3}, {"météo", "meteo", 2}, {"天气", "天汽", 1}, {"abcd", "badc", 2},
	}
	for _, c := range cases {
		if got := EditDistance(c.a, c.b); got != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := EditDistance(c.b, c.a); got != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.d)
		}
		for k := 0; k < c.d; k++ {
			if got := boundedDistance([]rune(c.a), []rune(c.b), k, nil); got != k+1 {
				t.Errorf("boundedDistance(%q, %q, %d) = %d, want %d", c.a, c.b, k, got, k+1)
			}
		}
	}
}

// FuzzFuzzyNameTier: any query against a catalog of random near names
// never panics, and searching (suggesting) twice gives the same hits in
// the same order.
// Every fuzzy hit is within the tier's edit bound of one of its names.
func FuzzFuzzyNameTier(f *testing.F) {
	for _, s := range []string{"fetchewebpage", "bing_serch", "a", "", "天气查訽", "météo", "x\xffy", strings.Repeat("ab", 40)} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, q string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed))
		srcs := slices.Clone(web)
		for i := range 20 {
			srcs = append(srcs, Source{Name: fmt.Sprintf("%s_%d", mutate(r, q), i), Description: mutate(r, q)})
		}
		ix, err := NewIndex(DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range srcs {
			if err := ix.Replace(NewDocument(s)); err != nil {
				t.Fatalf("Replace(%q): %v", s.Name, err)
			}
		}
		first := ix.Search(q, 10)
		if again := ix.Search(q, 10); !slices.Equal(first, again) {
			t.Fatalf("Search(%q) gave %v, then %v", q, first, again)
		}
		if s1, s2 := ix.Suggest(q, 5), ix.Suggest(q, 5); !slices.Equal(s1, s2) {
			t.Fatalf("Suggest(%q) gave %v, then %v", q, s1, s2)
		}
		if ex := ix.Explain(q, 10); len(ex) != len(first) {
			t.Fatalf("Explain(%q) has %d hits, Search %d", q, len(ex), len(first))
		}
		folded := string(appendSepFold(nil, strings.TrimSpace(q)))
		k := nameEdits(utf8.RuneCountInString(folded))
		for _, h := range first {
			if h.Tier != TierFuzzyName {
				continue
			}
			doc, _ := ix.Document(h.Name)
			near := false
			for _, n := range append([]string{doc.Name}, doc.Aliases...) {
				forEachNamePart(n, func(key []byte, _ bool) {
					near = near || EditDistance(folded, string(key)) <= k
				})
			}
			if !near {
				t.Fatalf("Search(%q): fuzzy hit %q has no name within %d edits", q, h.Name, k)
			}
		}
	})
}

// mutate returns s with a few random rune edits.
func mutate(r *rand.Rand, s string) string {
	rs := []rune(s)
	for range r.IntN(3) {
		switch i := r.IntN(len(rs) + 1); r.IntN(3) {
		case 0:
			rs = slices.Insert(rs, i, rune('a'+r.IntN(26)))
		case 1:
			if i < len(rs) {
				rs = slices.Delete(rs, i, i+1)
			}
		default:
			if i < len(rs) {
				rs[i] = rune('a' + r.IntN(26))
			}
		}
	}
	return string(rs)
}

// TestBoundedDistanceAgreesWithTheFullTable checks the banded computation
// against the plain one on random strings over a small alphabet (where
// near strings are common).
func TestBoundedDistanceAgreesWithTheFullTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	word := func() []rune {
		rs := make([]rune, r.IntN(9))
		for i := range rs {
			rs[i] = rune('a' + r.IntN(3))
		}
		return rs
	}
	for range 20000 {
		a, b := word(), word()
		full := plainDistance(a, b)
		if got := EditDistance(string(a), string(b)); got != full {
			t.Fatalf("EditDistance(%q, %q) = %d, want %d", string(a), string(b), got, full)
		}
		for k := 0; k <= 4; k++ {
			want := min(full, k+1)
			if got := boundedDistance(a, b, k, nil); got != want {
				t.Fatalf("boundedDistance(%q, %q, %d) = %d, want %d (distance %d)", string(a), string(b), k, got, want, full)
			}
		}
	}
}

// plainDistance is the optimal-string-alignment distance over the whole
// table, written plainly: the yardstick of the banded computation.
func plainDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
