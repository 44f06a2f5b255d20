package search_test

import (
	"testing"

	"github.com/quiver-go/quiver/internal/benchdata"
	"github.com/quiver-go/quiver/internal/typos"
)

// nameTypoQueries is the query count of BenchmarkSearchNameTypos.
const nameTypoQueries = 1000

// BenchmarkSearchNameTypos measures the path a misspelled tool name takes
// (the fuzzy name tier, then corrections in scoring): one query per
// iteration, cycling through one-edit typos of the first 1,000 ToolSDK
// names (internal/typos, fixed seed), on the 10k-tool catalog of
// BenchmarkSearch. From the bench folder:
//
//	go test -run NONE -bench BenchmarkSearchNameTypos -benchtime 20000x ./search/
func BenchmarkSearchNameTypos(b *testing.B) {
	tools := benchdata.Tools(b, benchdata.ToolSDKCatalogFile)
	r := typos.New()
	var queries []string
	for _, t := range tools {
		if typo, _, ok := typos.OneEdit(r, t.Name); ok {
			queries = append(queries, typo)
		}
		if len(queries) == nameTypoQueries {
			break
		}
	}
	ix := benchdata.NewIndex(b, benchdata.Replicate(tools, 10_000))
	b.Run("tools=10k/engine=quiver", func(b *testing.B) { benchSearch(b, ix, queries) })
}
