package search_test

import (
	"testing"

	"github.com/quiver-go/quiver/internal/benchdata"
)

// typoFuzzyStride sets the query subset on which TestMetaToolTypos compares
// the fuzzy bleve peer: one MetaTool query in 10 (2,062 of 20,614). Its
// fuzzy match queries take 5-9 ms each on 199 tools (the plain peer about
// 0.2 ms), so both sets in full would take 3-6 minutes.
const typoFuzzyStride = 10

// TestMetaToolTypos measures how the rankers bear typos: the MetaTool
// queries clean and misspelled by benchdata.TypoQueries (the committed,
// seeded typos), against MetaTool's 199 tools. The default Index, the
// Baseline and the plain bleve peer run on all queries; then, with the
// fuzzy bleve peer (bleve's own typo tolerance), on one query in
// typoFuzzyStride. (Under the race detector both sets are thinned, see
// querySet.) It logs the metric tables and each ranker's change from clean
// to misspelled, and checks only that the default Index keeps a higher
// nDCG@10 on misspelled queries than the plain bleve peer.
func TestMetaToolTypos(t *testing.T) {
	tools := benchdata.Tools(t, benchdata.MetaToolCatalogFile)
	clean := benchdata.Queries(t)
	typoed := benchdata.TypoQueries(clean)
	changed := 0
	for i := range clean {
		if typoed[i].Query != clean[i].Query {
			changed++
		}
	}
	t.Logf("typos.Query misspelled %d of %d queries (the others have no word of 4 letters or more)", changed, len(clean))

	rankers := []benchdata.Ranker{
		{Name: "quiver (default)", Ranker: benchdata.NewIndex(t, tools)},
		{Name: "baseline BM25", Ranker: benchdata.NewBaseline(t, tools)},
		{Name: "bleve BM25", Ranker: newBlevePeer(t, tools)},
	}
	const file = benchdata.MetaToolCatalogFile
	setClean, what := querySet(clean, 1)
	setTypos, _ := querySet(typoed, 1)
	t.Logf("without bleve fuzzy: %s", what)
	mClean := benchdata.Compare(t, file+", clean queries", tools, setClean, rankers...)
	mTypos := benchdata.Compare(t, file+", queries with typos", tools, setTypos, rankers...)
	logChange(t, "clean → with typos ("+what+")", "clean", "typos", rankers, mClean, mTypos)

	withFuzzy := append(rankers, benchdata.Ranker{Name: "bleve BM25 fuzzy", Ranker: newBleveFuzzyPeer(t, tools)})
	subClean, what := querySet(clean, typoFuzzyStride)
	subTypos, _ := querySet(typoed, typoFuzzyStride)
	t.Logf("with bleve fuzzy: %s, the same for every ranker", what)
	sClean := benchdata.Compare(t, file+", clean queries, subset", tools, subClean, withFuzzy...)
	sTypos := benchdata.Compare(t, file+", queries with typos, subset", tools, subTypos, withFuzzy...)
	logChange(t, "clean → with typos, subset ("+what+")", "clean", "typos", withFuzzy, sClean, sTypos)

	if quiver, bleve := mTypos[0], mTypos[2]; quiver.NDCG10 <= bleve.NDCG10 {
		t.Errorf("on queries with typos, default nDCG@10 = %.4f; want above plain bleve's %.4f", quiver.NDCG10, bleve.NDCG10)
	}
}
