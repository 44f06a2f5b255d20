package search_test

import (
	"fmt"

	"github.com/quiver-go/quiver/internal/benchdata"
	"github.com/quiver-go/quiver/search/eval"
)

// raceStrideFactor multiplies the query strides of the quality benchmarks
// under the race detector, which slows bleve's searches five to ten times
// (./scripts/test runs this module's tests with -race): the benchmarks
// then stay within a minute, on fewer queries. Their figures are meant to
// be read from a run without -race.
const raceStrideFactor = 8

// querySet returns one query in stride from the first (benchdata.EveryNth),
// the stride multiplied by raceStrideFactor under the race detector, and
// says which in words for the logs.
func querySet(queries []eval.Query, stride int) ([]eval.Query, string) {
	if raceEnabled {
		stride *= raceStrideFactor
	}
	set := benchdata.EveryNth(queries, stride)
	what := fmt.Sprintf("all %d queries", len(queries))
	if stride > 1 {
		what = fmt.Sprintf("one query in %d from the first, %d of %d", stride, len(set), len(queries))
	}
	if raceEnabled {
		what += fmt.Sprintf("; race detector on: %d times fewer queries than without it", raceStrideFactor)
	}
	return set, what
}
