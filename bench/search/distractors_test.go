package search_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/benchdata"
	"github.com/quiver-go/quiver/search/eval"
)

// distractorStride sets the query subset of TestMetaToolAmongDistractors:
// one MetaTool query in 4 from the first (5,154 of 20,614). On 6,543
// tools the Baseline takes about 1.5 ms a query and the bleve peer about
// 1 ms, so all queries take about 50 s: too long for CI next to the other
// tests, for figures within 0.006 of the subset's.
const distractorStride = 4

// TestMetaToolAmongDistractors measures how the rankers hold up in a large
// catalog: the MetaTool queries against MetaTool's 199 tools alone, then
// with ToolSDK's 6,344 tools added as distractors (the one colliding
// ToolSDK name prefixed benchdata.ToolSDKPrefix), for the default Index,
// the Baseline and the plain bleve peer, on one query in distractorStride
// (fewer under the race detector, see querySet). Distractors are
// unlabelled, not irrelevant: ToolSDK has weather, news and search tools
// too. So besides the metric tables it logs, per ranker among
// distractors, how often a distractor ranks first above the labelled tool
// and how often that distractor's name shares a term with the labelled
// tool's (benchdata.SameDomain). It asserts no figure.
func TestMetaToolAmongDistractors(t *testing.T) {
	meta := benchdata.Tools(t, benchdata.MetaToolCatalogFile)
	merged, err := benchdata.WithDistractors(meta, benchdata.Tools(t, benchdata.ToolSDKCatalogFile), benchdata.ToolSDKPrefix)
	if err != nil {
		t.Fatal(err)
	}
	queries, what := querySet(benchdata.Queries(t), distractorStride)
	t.Logf("%s; %d distractors, renamed: %v", what, len(merged.Tools)-len(meta), merged.Renamed)

	alone := []benchdata.Ranker{
		{Name: "quiver (default)", Ranker: benchdata.NewIndex(t, meta)},
		{Name: "baseline BM25", Ranker: benchdata.NewBaseline(t, meta)},
		{Name: "bleve BM25", Ranker: newBlevePeer(t, meta)},
	}
	recorders := []*benchdata.FirstHits{
		benchdata.RecordFirstHits(benchdata.NewIndex(t, merged.Tools)),
		benchdata.RecordFirstHits(benchdata.NewBaseline(t, merged.Tools)),
		benchdata.RecordFirstHits(newBlevePeer(t, merged.Tools)),
	}
	among := make([]benchdata.Ranker, len(alone))
	for i, r := range alone {
		among[i] = benchdata.Ranker{Name: r.Name, Ranker: recorders[i]}
	}
	mAlone := benchdata.Compare(t, benchdata.MetaToolCatalogFile+", subset", meta, queries, alone...)
	mAmong := benchdata.Compare(t, benchdata.MetaToolCatalogFile+" + "+benchdata.ToolSDKCatalogFile+", subset",
		merged.Tools, queries, among...)
	logChange(t, "MetaTool alone → with ToolSDK distractors ("+what+")", "alone", "distract", alone, mAlone, mAmong)

	displaced := make([]benchdata.Displaced, len(recorders))
	for i, rec := range recorders {
		if displaced[i], err = merged.Displacements(queries, rec.First); err != nil {
			t.Fatalf("%s: %v", among[i].Name, err)
		}
		checkDisplaced(t, among[i].Name, displaced[i], len(queries))
	}
	t.Log("\n" + displacedTable(among, displaced, queries))
}

// checkDisplaced fails t unless d's counts nest as they must: queries ⊇
// not first ⊇ first a distractor ⊇ same domain.
func checkDisplaced(t *testing.T, ranker string, d benchdata.Displaced, queries int) {
	t.Helper()
	if d.Queries != queries || d.NotFirst > d.Queries || d.Distractor > d.NotFirst || d.SameDomain > d.Distractor {
		t.Errorf("%s: displacement counts %d queries ⊇ %d not first ⊇ %d distractor first ⊇ %d same domain do not nest (want %d queries)",
			ranker, d.Queries, d.NotFirst, d.Distractor, d.SameDomain, queries)
	}
}

// displacedTable formats the displacement counts of each ranker, with a
// few examples of each kind.
func displacedTable(rankers []benchdata.Ranker, displaced []benchdata.Displaced, queries []eval.Query) string {
	text := make(map[string]string, len(queries))
	for _, q := range queries {
		text[q.ID] = clip(q.Query, 70)
	}
	var b strings.Builder
	b.WriteString("with distractors: what ranks first when the labelled tool does not\n")
	fmt.Fprintf(&b, "%-18s %8s %17s %23s %17s\n", "ranker", "queries", "labelled not 1st", "1st is a distractor", "same domain")
	for i, r := range rankers {
		d := displaced[i]
		fmt.Fprintf(&b, "%-18s %8d %8d (%5.1f%%) %14d (%5.1f%%) %8d (%5.1f%%)\n", r.Name, d.Queries,
			d.NotFirst, percent(d.NotFirst, d.Queries), d.Distractor, percent(d.Distractor, d.NotFirst),
			d.SameDomain, percent(d.SameDomain, d.Distractor))
	}
	b.WriteString("(each share is of the column before. Same domain: the distractor's name shares an analyzed term with the labelled\n" +
		"tool's, a strict test: search_papers above ResearchHelper counts as other, so distractors that answer the query are more)\n")
	for i, r := range rankers {
		for _, ex := range displaced[i].SameExamples {
			fmt.Fprintf(&b, "%s, same domain: %s %q labelled %s, first %s\n", r.Name, ex.Query, text[ex.Query], ex.Labelled, ex.First)
		}
		for _, ex := range displaced[i].OtherExamples {
			fmt.Fprintf(&b, "%s, other: %s %q labelled %s, first %s\n", r.Name, ex.Query, text[ex.Query], ex.Labelled, ex.First)
		}
	}
	return b.String()
}

// clip returns s cut to at most n runes, marking a cut with an ellipsis.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// percent returns part as a percentage of whole, 0 when whole is 0.
func percent(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}
