package benchdata

import (
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/search/eval"
)

// TestNameTerms checks the analysis of names and the generic terms left out.
func TestNameTerms(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"get_weather_forecast", search.Analyze("get weather forecast")},
		{"WeatherTool", search.Analyze("weather")},
		{"weather-weather.weather", search.Analyze("weather")}, // distinct
		{"find-tools", search.Analyze("find")},
		{"GifApi", search.Analyze("gif")},
		{"AI_app_tool", nil},
	} {
		if got := NameTerms(c.name); !slices.Equal(got, c.want) {
			t.Errorf("NameTerms(%q) = %q; want %q", c.name, got, c.want)
		}
	}
}

// TestSameDomain checks the name-term overlap both ways.
func TestSameDomain(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"get_weather_forecast", "WeatherTool", true},
		{"WeatherTool", "get_weather_forecast", true},
		{"search_news", "NewsTool", true}, // stemmed alike
		{"SEOTool", "find-tools", false},  // only the generic "tool"
		{"ResearchHelper", "search_papers", false},
	} {
		if got := SameDomain(c.a, c.b); got != c.want {
			t.Errorf("SameDomain(%q, %q) = %v; want %v", c.a, c.b, got, c.want)
		}
	}
}

// fixedRanker answers each query text with the given names.
type fixedRanker map[string][]string

// Search implements search.Ranker.
func (r fixedRanker) Search(query string, limit int) []search.Hit {
	var hits []search.Hit
	for _, n := range r[query] {
		hits = append(hits, search.Hit{Name: n, Tier: search.TierScored})
	}
	return hits[:min(limit, len(hits))]
}

// TestDisplacements runs a fixed ranker through eval.Evaluate with its
// first hits recorded, and checks every count.
func TestDisplacements(t *testing.T) {
	m, err := WithDistractors(
		[]Tool{{Name: "WeatherTool"}, {Name: "NewsTool"}, {Name: "speak"}},
		[]Tool{{Name: "get_weather_forecast"}, {Name: "send_email"}, {Name: "speak"}},
		ToolSDKPrefix)
	if err != nil {
		t.Fatal(err)
	}
	r := RecordFirstHits(fixedRanker{
		"rain?":     {"WeatherTool", "get_weather_forecast"}, // labelled first
		"forecast?": {"get_weather_forecast", "WeatherTool"}, // same domain
		"headlines": {"send_email", "NewsTool"},              // other domain
		"briefing":  {"WeatherTool", "NewsTool"},             // a labelled tool, not a distractor
		"say it":    {"toolsdk:speak", "speak"},              // renamed: same domain
		"nothing":   nil,                                     // no hit
		"forecast!": {"get_weather_forecast"},                // same domain, one example per tool
	})
	queries := []eval.Query{
		{ID: "1", Query: "rain?", Relevant: []string{"WeatherTool"}},
		{ID: "2", Query: "forecast?", Relevant: []string{"WeatherTool"}},
		{ID: "3", Query: "headlines", Relevant: []string{"NewsTool"}},
		{ID: "4", Query: "briefing", Relevant: []string{"NewsTool"}},
		{ID: "5", Query: "say it", Relevant: []string{"speak"}},
		{ID: "6", Query: "nothing", Relevant: []string{"speak"}},
		{ID: "7", Query: "forecast!", Relevant: []string{"WeatherTool"}},
	}
	eval.Evaluate(r, queries, nil)
	if name, ok := r.First("nothing"); name != "" || !ok {
		t.Errorf(`First("nothing") = %q, %v; want "", true`, name, ok)
	}
	d, err := m.Displacements(queries, r.First)
	if err != nil {
		t.Fatal(err)
	}
	if d.Queries != 7 || d.NotFirst != 6 || d.Distractor != 4 || d.SameDomain != 3 {
		t.Errorf("Displaced = %+v; want 7 queries, 6 not first, 4 distractors, 3 same domain", d)
	}
	wantSame := []Displacement{{"2", "WeatherTool", "get_weather_forecast"}, {"5", "speak", "speak"}}
	wantOther := []Displacement{{"3", "NewsTool", "send_email"}}
	if !slices.Equal(d.SameExamples, wantSame) || !slices.Equal(d.OtherExamples, wantOther) {
		t.Errorf("examples = %+v, %+v; want %+v, %+v", d.SameExamples, d.OtherExamples, wantSame, wantOther)
	}

	_, err = m.Displacements([]eval.Query{{ID: "8", Query: "never run", Relevant: []string{"speak"}}}, r.First)
	if err == nil || !strings.Contains(err.Error(), "not searched") {
		t.Errorf("Displacements of an unsearched query: err = %v; want not searched", err)
	}
}
