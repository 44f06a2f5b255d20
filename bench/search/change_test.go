package search_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/benchdata"
	"github.com/quiver-go/quiver/search/eval"
)

// logChange logs, for each ranker, nDCG@10 and Recall@5 measured before
// and after one change of the benchmark (typos in the queries, distractors
// in the catalog), and their differences. before and after are in the
// rankers' order, as benchdata.Compare returns them.
func logChange(t *testing.T, title, beforeName, afterName string, rankers []benchdata.Ranker, before, after []eval.Metrics) {
	t.Helper()
	if len(before) != len(rankers) || len(after) != len(rankers) {
		t.Fatalf("logChange: %d rankers, %d and %d metrics", len(rankers), len(before), len(after))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", title)
	fmt.Fprintf(&b, "%-18s %26s %26s\n", "", "nDCG@10", "Recall@5")
	fmt.Fprintf(&b, "%-18s %8s %8s %8s %8s %8s %8s\n", "ranker",
		short(beforeName), short(afterName), "change", short(beforeName), short(afterName), "change")
	for i, r := range rankers {
		x, y := before[i], after[i]
		fmt.Fprintf(&b, "%-18s %8.4f %8.4f %+8.4f %8.4f %8.4f %+8.4f\n", r.Name,
			x.NDCG10, y.NDCG10, y.NDCG10-x.NDCG10, x.Recall5, y.Recall5, y.Recall5-x.Recall5)
	}
	t.Log("\n" + b.String())
}

// short cuts a column heading to the table's 8-rune columns.
func short(s string) string {
	if r := []rune(s); len(r) > 8 {
		return string(r[:8])
	}
	return s
}
