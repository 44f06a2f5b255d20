package search

import (
	"math"
	"slices"
	"testing"
)

func TestExplainMatchesSearchAndAddsUp(t *testing.T) {
	ix := newTestIndex(t, web...)
	for _, q := range []string{"send an emial to the team", "fetch web pages", "fetchewebpage", "bing_search", "GetWeather", "nothing here"} {
		hits := ix.Search(q, 5)
		ex := ix.Explain(q, 5)
		if len(ex) != len(hits) {
			t.Fatalf("Explain(%q) has %d hits, Search %d", q, len(ex), len(hits))
		}
		for i, e := range ex {
			if e.Hit != hits[i] {
				t.Errorf("Explain(%q)[%d] = %v, Search has %v", q, i, e.Hit, hits[i])
			}
			var sum float64
			for _, tm := range e.Terms {
				var fields float64
				for _, f := range tm.Fields {
					fields += f.Score
				}
				if math.Abs(fields-tm.Score) > 1e-9 {
					t.Errorf("Explain(%q) %s term %q: fields add to %v, term score %v", q, e.Name, tm.Term, fields, tm.Score)
				}
				sum += tm.Score
			}
			if math.Abs(sum-e.Score) > 1e-9 {
				t.Errorf("Explain(%q) %s: terms add to %v, score %v", q, e.Hit.Name, sum, e.Score)
			}
		}
	}
}

func TestExplainNamesTheMatchAndTheCorrections(t *testing.T) {
	ix := newTestIndex(t, web...)
	e := ix.Explain("opne_tab", 1)
	if len(e) != 1 || e[0].Tier != TierFuzzyName || e[0].Name != "browser.open_tab" || e[0].NameDistance != 1 || !e[0].NamePart {
		t.Errorf("Explain(opne_tab) = %+v, want browser.open_tab by its part, one edit", e)
	}
	e = ix.Explain("GetWeather", 1)
	if len(e) != 1 || e[0].Tier != TierSeparatorFolded || e[0].Name != "get_weather" {
		t.Errorf("Explain(GetWeather) = %+v", e)
	}
	e = ix.Explain("send an emial", 1)
	if len(e) != 1 || e[0].Hit.Name != "send_email" {
		t.Fatalf("Explain(send an emial) = %+v", e)
	}
	i := slices.IndexFunc(e[0].Terms, func(m TermMatch) bool { return m.Word == "emial" })
	if i < 0 {
		t.Fatalf("no term for emial in %+v", e[0].Terms)
	}
	if m := e[0].Terms[i]; m.Term != "email" || m.Distance != 1 || m.Weight != correctionWeight {
		t.Errorf("emial explained as %+v, want email, one edit, weight %v", m, correctionWeight)
	}
	j := slices.IndexFunc(e[0].Terms, func(m TermMatch) bool { return m.Term == "send" })
	if j < 0 || e[0].Terms[j].Distance != 0 || e[0].Terms[j].Weight != 1 || e[0].Terms[j].Fields[0].Field != FieldName {
		t.Errorf("send explained as %+v", e[0].Terms)
	}
}

func TestSuggestNamesTheToolAQueryAlmostNamed(t *testing.T) {
	ix := newTestIndex(t, web...)
	// Three edits from fetch_webpage: past the fuzzy tier, nothing scores.
	if hits := ix.Search("fetchwbpg", 5); len(hits) != 0 {
		t.Fatalf("Search(fetchwbpg) = %v, want nothing (the case needs an empty answer)", hits)
	}
	got := ix.Suggest("fetchwbpg", 3)
	if len(got) == 0 || got[0] != (Suggestion{Name: "fetch_webpage", Distance: 3}) {
		t.Errorf("Suggest(fetchwbpg) = %v, want fetch_webpage at 3 edits first", got)
	}
	for _, q := range []string{"translate this paragraph into klingon", "zz", ""} {
		if got := ix.Suggest(q, 3); len(got) != 0 {
			t.Errorf("Suggest(%q) = %v, want none", q, got)
		}
	}
}
