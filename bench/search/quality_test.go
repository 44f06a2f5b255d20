package search_test

import (
	"testing"

	"github.com/quiver-go/quiver/internal/benchdata"
)

// TestMetaToolAboveBleve evaluates the default Index, the Baseline and the
// bleve peer on all MetaTool queries against its 199-tool catalog, logs
// their metrics side by side (the table of docs/benchmarks.md) and checks
// that the default ranker scores above bleve.
func TestMetaToolAboveBleve(t *testing.T) {
	tools := benchdata.Tools(t, benchdata.MetaToolCatalogFile)
	m := benchdata.Compare(t, benchdata.MetaToolCatalogFile, tools, benchdata.Queries(t),
		benchdata.Ranker{Name: "quiver (default)", Ranker: benchdata.NewIndex(t, tools)},
		benchdata.Ranker{Name: "baseline BM25", Ranker: benchdata.NewBaseline(t, tools)},
		benchdata.Ranker{Name: "bleve BM25", Ranker: newBlevePeer(t, tools)},
	)
	quiver, peer := m[0], m[2]
	if quiver.NDCG10 <= peer.NDCG10 {
		t.Errorf("default nDCG@10 = %.4f; want above bleve's %.4f", quiver.NDCG10, peer.NDCG10)
	}
}
