package search

import (
	"slices"
	"testing"
)

func TestAnalyzeSplitsIdentifiers(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"startExport", []string{"start", "export"}},
		{"open_table", []string{"open", "tabl"}},
		{"records.search", []string{"record", "search"}},
		{"HTTPServer", []string{"http", "server"}},
		{"parseJSONBody", []string{"pars", "json", "bodi"}},
		{"base64 v2", []string{"base64", "v2"}},
		{"proposeOpenWorkbench", []string{"propos", "open", "workbench"}},
		{"Ünïcode Straße", []string{"ünïcode", "straße"}},
	}
	for _, c := range cases {
		if got := Analyze(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Analyze(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAnalyzeDropsStopWordsAndFillers(t *testing.T) {
	got := Analyze("Could you please export the orders to a CSV file?")
	want := []string{"export", "order", "csv", "file"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAnalyzeStemsInflections(t *testing.T) {
	for _, pair := range [][2]string{{"papers", "paper"}, {"exporting", "export"}, {"filtered", "filter"}} {
		a, b := Analyze(pair[0]), Analyze(pair[1])
		if !slices.Equal(a, b) {
			t.Errorf("Analyze(%q) = %q but Analyze(%q) = %q; want the same stem", pair[0], a, pair[1], b)
		}
	}
}

func TestAnalyzeEmptyAndPunctuation(t *testing.T) {
	for _, in := range []string{"", "   ", "!!! ... ---", "the a an"} {
		if got := Analyze(in); len(got) != 0 {
			t.Errorf("Analyze(%q) = %q, want no terms", in, got)
		}
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"startExport", "HTTPServer", "a\xffb", "日本語のテキスト", "ÀÉÎ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range Analyze(s) {
			if term == "" {
				t.Fatalf("Analyze(%q) produced an empty term", s)
			}
		}
		doc := NewDocument(Source{Name: "x" + s, Description: s, Keywords: []string{s}, Args: []Arg{{Name: s, Description: s}}})
		if err := doc.Validate(); err != nil {
			t.Fatalf("NewDocument from %q is invalid: %v", s, err)
		}
	})
}
