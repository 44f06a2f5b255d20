package search

import (
	"slices"
	"testing"
	"unicode/utf8"
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
		{"Ünïcode Straße", []string{"unicod", "straße"}},
	}
	for _, c := range cases {
		if got := Analyze(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Analyze(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAnalyzeFoldsAccentsAndWidths(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"météo du jour", []string{"meteo", "du", "jour"}},
		{"Météo", []string{"meteo"}}, // decomposed accents stay in the word
		{"ÉtatCivil", []string{"etat", "civil"}},
		{"Ｗｅａｔｈｅｒ ｆｏｒｅｃａｓｔ", []string{"weather", "forecast"}},
		{"ﬁle", []string{"file"}},
		{"Погода сегодня", []string{"погода", "сегодня"}}, // not stemmed: stemming is English only
		{"ΚΑΙΡΌΣ", []string{"καιροσ"}},
	}
	for _, c := range cases {
		if got := Analyze(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Analyze(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAnalyzeIndexesHanAndKanaAsBigrams(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"天气查询", []string{"天气", "气查", "查询"}},
		{"天气", []string{"天气"}},
		{"天", []string{"天"}},
		{"weather天气API", []string{"weather", "天气", "api"}},
		{"東京の天気", []string{"東京", "京の", "の天", "天気"}},
		{"カタカナ テスト", []string{"カタ", "タカ", "カナ", "テス", "スト"}},
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
	for _, s := range []string{"startExport", "HTTPServer", "a\xffb", "日本語のテキスト", "ÀÉÎ", "", "Me\u0301te\u0301o", "ﬁle ℌ ½", "\u0301x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := Analyze(s)
		for _, term := range terms {
			if term == "" {
				t.Fatalf("Analyze(%q) produced an empty term", s)
			}
			if !utf8.ValidString(term) {
				t.Fatalf("Analyze(%q) produced %q, not UTF-8", s, term)
			}
		}
		if again := Analyze(s); !slices.Equal(terms, again) {
			t.Fatalf("Analyze(%q) gave %q, then %q", s, terms, again)
		}
		doc := NewDocument(Source{Name: "x" + s, Description: s, Keywords: []string{s}, Args: []Arg{{Name: s, Description: s}}})
		if err := doc.Validate(); err != nil {
			t.Fatalf("NewDocument from %q is invalid: %v", s, err)
		}
	})
}
