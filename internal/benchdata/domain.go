package benchdata

import (
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/search/eval"
)

// genericNameTerms are the analyzed forms of the words that say what kind
// of software a tool is, not what it is about, so that sharing one does not
// make two tools of one domain: 39 MetaTool names end in Tool (SEOTool,
// FinanceTool), and SEOTool would otherwise share a domain with find-tools.
var genericNameTerms = func() map[string]bool {
	m := make(map[string]bool)
	for _, t := range search.Analyze("tool app api ai") {
		m[t] = true
	}
	return m
}()

// NameTerms returns the distinct terms search.Analyze finds in a tool
// name, in order of first appearance, leaving out the generic terms
// that name no domain.
func NameTerms(name string) []string {
	var out []string
	for _, t := range search.Analyze(name) {
		if !genericNameTerms[t] && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// SameDomain reports whether the tool names a and b share a NameTerms
// term, as get_weather_forecast and WeatherTool share weather.
func SameDomain(a, b string) bool {
	ta := NameTerms(a)
	for _, t := range NameTerms(b) {
		if slices.Contains(ta, t) {
			return true
		}
	}
	return false
}

// FirstHits is a search.Ranker that passes every search on to its Ranker
// and records the first hit of each query text, so that a benchmark can
// look at what eval.Evaluate ranked first without searching again. It
// assumes a deterministic Ranker (a repeated text ranks the same) and one
// goroutine, as eval.Evaluate calls it.
type FirstHits struct {
	search.Ranker
	first map[string]string
}

// RecordFirstHits returns a FirstHits wrapping r.
func RecordFirstHits(r search.Ranker) *FirstHits {
	return &FirstHits{Ranker: r, first: make(map[string]string)}
}

// Search implements search.Ranker, recording the first hit ("" for none).
func (f *FirstHits) Search(query string, limit int) []search.Hit {
	hits := f.Ranker.Search(query, limit)
	first := ""
	if len(hits) > 0 {
		first = hits[0].Name
	}
	f.first[query] = first
	return hits
}

// First returns the first hit recorded for query ("" when there was none),
// and whether query was searched.
func (f *FirstHits) First(query string) (name string, searched bool) {
	name, searched = f.first[query]
	return name, searched
}

// Displacement is one query whose labelled tool a distractor outranked.
type Displacement struct {
	// Query is the query's ID.
	Query string
	// Labelled is the query's first labelled tool.
	Labelled string
	// First is the distractor ranked first, by its own catalog's name.
	First string
}

// Displaced counts, over a query set run against a Merged catalog, what
// outranked the labelled tools.
type Displaced struct {
	// Queries is the number of queries looked at.
	Queries int
	// NotFirst is the number of queries whose first hit is none of their
	// labelled tools (or that have no hit at all).
	NotFirst int
	// Distractor is the number of NotFirst queries whose first hit is a
	// distractor.
	Distractor int
	// SameDomain is the number of Distractor queries whose first hit
	// shares a name term with one of their labelled tools (SameDomain).
	SameDomain int
	// SameExamples and OtherExamples are the first few Distractor queries
	// of each kind, in query order, one per labelled tool.
	SameExamples, OtherExamples []Displacement
}

// displacedExamples is how many examples of each kind Displaced keeps.
const displacedExamples = 3

// Displacements returns what first hits, as first reports them, outranked
// the labelled tools of queries in m. It fails when a query was not
// searched.
func (m Merged) Displacements(queries []eval.Query, first func(query string) (name string, searched bool)) (Displaced, error) {
	var d Displaced
	for _, q := range queries {
		top, ok := first(q.Query)
		if !ok {
			return Displaced{}, fmt.Errorf("benchdata: query %s %q was not searched", q.ID, q.Query)
		}
		d.Queries++
		if top != "" && slices.Contains(q.Relevant, top) {
			continue
		}
		d.NotFirst++
		original, ok := m.Distractor(top)
		if !ok {
			continue
		}
		d.Distractor++
		examples := &d.OtherExamples
		if slices.ContainsFunc(q.Relevant, func(l string) bool { return SameDomain(l, original) }) {
			d.SameDomain++
			examples = &d.SameExamples
		}
		addExample(examples, Displacement{Query: q.ID, Labelled: q.Relevant[0], First: original})
	}
	return d, nil
}

// addExample appends ex to examples unless they are displacedExamples long
// or already hold one for ex's labelled tool.
func addExample(examples *[]Displacement, ex Displacement) {
	if len(*examples) >= displacedExamples ||
		slices.ContainsFunc(*examples, func(e Displacement) bool { return e.Labelled == ex.Labelled }) {
		return
	}
	*examples = append(*examples, ex)
}
