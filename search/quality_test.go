package search_test

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/benchdata"
	"github.com/quiver-go/quiver/search"
)

// Quality on the benchmark data in bench/data (see its README), which ships
// in the repository, so these tests always run:
//
//	go test -run 'TestMetaToolQuality|TestMetaToolTypoQuality|TestExactNamesRankFirst|TestNameTyposRankTheToolFirst' -v ./search/
//
// The comparisons with the bleve peer and the speed benchmarks live in the
// benchmark module (bench/search), which keeps bleve out of this module.

// Quality targets of the default Index on MetaTool (see docs/benchmarks.md).
const (
	// minNDCG10 is 0.005 under the clean figure before typo tolerance
	// (0.5699): forgiving typos may not cost clean queries more.
	minNDCG10           = 0.5649
	minGainOverBaseline = 1.3
	// minTypoNDCG10 is for the typo-perturbed queries (internal/typos):
	// 0.4958 without corrections of misspelled words, 0.5356 with.
	minTypoNDCG10 = 0.52
)

// TestMetaToolQuality evaluates the default Index and the Baseline on all
// MetaTool queries against its 199-tool catalog, logs their metrics side by
// side and checks the default ranker's targets.
func TestMetaToolQuality(t *testing.T) {
	tools := benchdata.Tools(t, benchdata.MetaToolCatalogFile)
	m := benchdata.Compare(t, benchdata.MetaToolCatalogFile, tools, benchdata.Queries(t),
		benchdata.Ranker{Name: "quiver (default)", Ranker: benchdata.NewIndex(t, tools)},
		benchdata.Ranker{Name: "baseline BM25", Ranker: benchdata.NewBaseline(t, tools)},
	)
	quiver, base := m[0], m[1]
	if quiver.NDCG10 < minNDCG10 {
		t.Errorf("default nDCG@10 = %.4f; want >= %.2f", quiver.NDCG10, minNDCG10)
	}
	if quiver.NDCG10 < minGainOverBaseline*base.NDCG10 {
		t.Errorf("default nDCG@10 = %.4f is %.2f× the baseline's %.4f; want >= %.1f×",
			quiver.NDCG10, quiver.NDCG10/base.NDCG10, base.NDCG10, minGainOverBaseline)
	}
}

// TestMetaToolTypoQuality evaluates the default Index on the MetaTool
// queries misspelled by the committed generator (benchdata.TypoQueries):
// corrections of misspelled words must keep most of the clean figure.
func TestMetaToolTypoQuality(t *testing.T) {
	tools := benchdata.Tools(t, benchdata.MetaToolCatalogFile)
	m := benchdata.Compare(t, benchdata.MetaToolCatalogFile+", queries with typos", tools, benchdata.TypoQueries(benchdata.Queries(t)),
		benchdata.Ranker{Name: "quiver (default)", Ranker: benchdata.NewIndex(t, tools)},
	)
	if m[0].NDCG10 < minTypoNDCG10 {
		t.Errorf("default nDCG@10 on typo queries = %.4f; want >= %.2f", m[0].NDCG10, minTypoNDCG10)
	}
}

// TestExactNamesRankFirst checks the exact-name tier on real catalogs:
// searching any tool's exact name returns that tool first.
func TestExactNamesRankFirst(t *testing.T) {
	for _, file := range []string{benchdata.LiveMCPCatalogFile, benchdata.ToolSDKCatalogFile} {
		t.Run(path.Base(file), func(t *testing.T) {
			tools := benchdata.Tools(t, file)
			ix := benchdata.NewIndex(t, tools)
			var failures []string
			for _, tool := range tools {
				hits := ix.Search(tool.Name, search.DefaultLimit)
				if len(hits) > 0 && hits[0].Name == tool.Name && hits[0].Tier == search.TierExact {
					continue
				}
				got := "no hits"
				if len(hits) > 0 {
					got = fmt.Sprintf("%q (%s)", hits[0].Name, hits[0].Tier)
				}
				failures = append(failures, fmt.Sprintf("Search(%q) first hit is %s", tool.Name, got))
			}
			if len(failures) > 0 {
				t.Errorf("%d of %d exact names do not rank their tool first with tier exact; first ones:\n%s",
					len(failures), len(tools), strings.Join(failures[:min(len(failures), 20)], "\n"))
			}
		})
	}
}
