package benchdata

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/search/eval"
)

// NewIndex indexes tools in a default search.Index.
func NewIndex(tb testing.TB, tools []Tool) *search.Index {
	tb.Helper()
	ix, err := search.NewIndex(search.DefaultParams())
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range tools {
		if err := ix.Add(search.NewDocument(t.Source())); err != nil {
			tb.Fatal(err)
		}
	}
	return ix
}

// NewBaseline indexes tools' names and descriptions in a search.Baseline.
func NewBaseline(tb testing.TB, tools []Tool) *search.Baseline {
	tb.Helper()
	b := search.NewBaseline()
	for _, t := range tools {
		if err := b.Add(t.Name, t.Description); err != nil {
			tb.Fatal(err)
		}
	}
	return b
}

// Ranker is a ranker with the name a comparison reports it under.
type Ranker struct {
	Name string
	search.Ranker
}

// Compare evaluates each ranker on queries against tools (read from the
// catalog file named file), logs their metrics side by side, fails tb when
// a query's relevant tools are missing from tools, and returns the metrics
// in the rankers' order.
func Compare(tb testing.TB, file string, tools []Tool, queries []eval.Query, rankers ...Ranker) []eval.Metrics {
	tb.Helper()
	known := make(map[string]bool, len(tools))
	for _, t := range tools {
		known[t.Name] = true
	}
	results := make([]eval.Metrics, len(rankers))
	var table strings.Builder
	fmt.Fprintf(&table, "%s: %d queries, %d tools\n", file, len(queries), len(tools))
	fmt.Fprintf(&table, "%-18s %8s %9s %10s %7s %8s %7s\n", "ranker", "nDCG@10", "Recall@5", "Recall@10", "MRR@10", "queries", "skipped")
	for i, rk := range rankers {
		start := time.Now()
		m := eval.Evaluate(rk.Ranker, queries, func(name string) bool { return known[name] })
		results[i] = m
		fmt.Fprintf(&table, "%-18s %8.4f %9.4f %10.4f %7.4f %8d %7d  (%v)\n",
			rk.Name, m.NDCG10, m.Recall5, m.Recall10, m.MRR10, m.Queries, m.Skipped, time.Since(start).Round(time.Millisecond))
		if m.Skipped > 0 {
			tb.Errorf("%s: %d queries skipped: their relevant tools are not in %s", rk.Name, m.Skipped, file)
		}
	}
	tb.Log("\n" + table.String())
	return results
}
