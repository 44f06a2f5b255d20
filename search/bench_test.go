package search_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/quiver-go/quiver/internal/shareddata"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/search/eval"
)

// Quality and speed on the shared benchmark data (see
// ../shared/data/README.md). Everything here skips when the data is absent;
// set QUIVER_SHARED_DATA to its folder to run it elsewhere.
//
//	go test -run 'TestMetaToolQuality|TestExactNamesRankFirst' -v ./search/
//	go test -run NONE -bench BenchmarkSearch -benchtime 2000x ./search/
//	go test -run NONE -bench BenchmarkIndexBuild -benchtime 3x ./search/
//
// BenchmarkIndexBuild builds a whole 10k-tool index per iteration (the
// bleve one takes seconds), so give it a small -benchtime.

// Quality targets of the default Index on MetaTool (see DESIGN.md).
const (
	minNDCG10           = 0.52
	minGainOverBaseline = 1.3
)

// TestMetaToolQuality evaluates the default Index, the Baseline and the
// bleve peer on all MetaTool queries against its 199-tool catalog, logs
// their metrics side by side and checks the default ranker's targets.
func TestMetaToolQuality(t *testing.T) {
	tools := loadCatalog(t, metaToolCatalog)
	queries := loadQueries(t)
	known := make(map[string]bool, len(tools))
	for _, tool := range tools {
		known[tool.Name] = true
	}
	rankers := []struct {
		name string
		r    search.Ranker
	}{
		{"quiver (default)", newQuiverIndex(t, tools)},
		{"baseline BM25", newBaseline(t, tools)},
		{"bleve BM25", newBlevePeer(t, tools)},
	}
	results := make([]eval.Metrics, len(rankers))
	var table strings.Builder
	fmt.Fprintf(&table, "MetaTool: %d queries, %d tools\n", len(queries), len(tools))
	fmt.Fprintf(&table, "%-18s %8s %9s %10s %7s %8s %7s\n", "ranker", "nDCG@10", "Recall@5", "Recall@10", "MRR@10", "queries", "skipped")
	for i, rk := range rankers {
		start := time.Now()
		m := eval.Evaluate(rk.r, queries, func(name string) bool { return known[name] })
		results[i] = m
		fmt.Fprintf(&table, "%-18s %8.4f %9.4f %10.4f %7.4f %8d %7d  (%v)\n",
			rk.name, m.NDCG10, m.Recall5, m.Recall10, m.MRR10, m.Queries, m.Skipped, time.Since(start).Round(time.Millisecond))
		if m.Skipped > 0 {
			t.Errorf("%s: %d queries skipped: their relevant tools are not in %s", rk.name, m.Skipped, metaToolCatalog)
		}
	}
	t.Log("\n" + table.String())

	quiver, base, peer := results[0], results[1], results[2]
	if quiver.NDCG10 < minNDCG10 {
		t.Errorf("default nDCG@10 = %.4f; want >= %.2f", quiver.NDCG10, minNDCG10)
	}
	if quiver.NDCG10 < minGainOverBaseline*base.NDCG10 {
		t.Errorf("default nDCG@10 = %.4f is %.2f× the baseline's %.4f; want >= %.1f×",
			quiver.NDCG10, quiver.NDCG10/base.NDCG10, base.NDCG10, minGainOverBaseline)
	}
	if quiver.NDCG10 <= peer.NDCG10 {
		t.Errorf("default nDCG@10 = %.4f; want above bleve's %.4f", quiver.NDCG10, peer.NDCG10)
	}
}

// TestExactNamesRankFirst checks the exact-name tier on real catalogs:
// searching any tool's exact name returns that tool first.
func TestExactNamesRankFirst(t *testing.T) {
	shareddata.Require(t)
	for _, rel := range []string{liveMCPCatalog, toolSDKCatalog} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			tools := loadCatalog(t, rel)
			ix := newQuiverIndex(t, tools)
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

// speedQueryStride and speedQueryCount fix the speed benchmarks' query set:
// every 20th MetaTool query from the first (ids metatool-00001,
// metatool-00021, ...), 1,000 in all, so it spans every tool's queries.
const (
	speedQueryStride = 20
	speedQueryCount  = 1000
)

// speedQueries returns the fixed query texts of the speed benchmarks.
func speedQueries(tb testing.TB) []string {
	tb.Helper()
	all := loadQueries(tb)
	var out []string
	for i := 0; i < len(all) && len(out) < speedQueryCount; i += speedQueryStride {
		out = append(out, all[i].Query)
	}
	if len(out) != speedQueryCount {
		tb.Fatalf("only %d speed queries in %d MetaTool queries; want %d", len(out), len(all), speedQueryCount)
	}
	return out
}

// catalogSizes are the speed benchmarks' catalog sizes, built from
// toolsdk.json's tools replicated with "#k" name suffixes (see replicate).
var catalogSizes = []struct {
	name  string
	tools int
}{{"1k", 1_000}, {"10k", 10_000}, {"50k", 50_000}}

// BenchmarkSearch measures one query per iteration (cycling through the
// fixed query set, limit 10) per catalog size and engine, and reports the
// per-query latency percentiles p50-ns and p99-ns besides ns/op. Indexes
// are built once per size, outside the timer; only the sub-benchmarks that
// -bench selects build theirs.
func BenchmarkSearch(b *testing.B) {
	tools := loadCatalog(b, toolSDKCatalog)
	queries := speedQueries(b)
	for _, size := range catalogSizes {
		b.Run("tools="+size.name, func(b *testing.B) {
			cat := replicate(tools, size.tools)
			var ix *search.Index
			b.Run("engine=quiver", func(b *testing.B) {
				if ix == nil {
					ix = newQuiverIndex(b, cat)
				}
				benchSearch(b, ix, queries)
			})
			ix = nil
			var idx bleve.Index
			b.Cleanup(func() {
				if idx != nil {
					_ = idx.Close()
				}
			})
			b.Run("engine=bleve", func(b *testing.B) {
				if idx == nil {
					var err error
					if idx, err = buildBleve(newBleveMapping(), bleveInputs(cat)); err != nil {
						b.Fatal(err)
					}
				}
				benchSearch(b, &blevePeer{tb: b, idx: idx}, queries)
			})
		})
	}
}

// searchSink keeps the benchmarked searches' results observable.
var searchSink int

// benchSearch runs b.N searches of r, timing each, and reports p50 and p99.
func benchSearch(b *testing.B, r search.Ranker, queries []string) {
	lat := make([]time.Duration, b.N)
	// Warm up: the index memoizes each new query word's stem, so the
	// first sight of a word allocates; steady state is what is reported.
	for _, q := range queries {
		searchSink += len(r.Search(q, search.DefaultLimit))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		hits := r.Search(queries[i%len(queries)], search.DefaultLimit)
		lat[i] = time.Since(start)
		searchSink += len(hits)
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(percentile(lat, 50)), "p50-ns")
	b.ReportMetric(float64(percentile(lat, 99)), "p99-ns")
}

// percentile returns the nearest-rank p-th percentile of sorted latencies.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 × n)
	return sorted[max(rank, 1)-1]
}

// buildSize is the catalog size of BenchmarkIndexBuild.
const buildSize = 10_000

// BenchmarkIndexBuild measures building a whole 10k-tool index per
// iteration and reports ns/tool besides ns/op:
//   - engine=quiver/docs=prebuilt: NewIndex and Add of Documents analyzed
//     beforehand (as generated code ships them);
//   - engine=quiver/docs=analyzed: the same including analysis with a fresh
//     DocumentBuilder per build (as a registry indexes runtime tools);
//   - engine=bleve: a scorch BM25 index fed in batches of 1,000 (its
//     analysis is part of indexing), for reference.
func BenchmarkIndexBuild(b *testing.B) {
	tools := replicate(loadCatalog(b, toolSDKCatalog), buildSize)
	b.Run("engine=quiver/docs=prebuilt", func(b *testing.B) {
		docs := make([]search.Document, len(tools))
		for i, t := range tools {
			docs[i] = search.NewDocument(t.source())
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			ix, err := search.NewIndex(search.DefaultParams())
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range docs {
				if err := ix.Add(d); err != nil {
					b.Fatal(err)
				}
			}
		}
		reportPerTool(b, len(tools))
	})
	b.Run("engine=quiver/docs=analyzed", func(b *testing.B) {
		srcs := make([]search.Source, len(tools))
		for i, t := range tools {
			srcs[i] = t.source()
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			ix, err := search.NewIndex(search.DefaultParams())
			if err != nil {
				b.Fatal(err)
			}
			db := search.NewDocumentBuilder()
			for _, s := range srcs {
				if err := ix.Add(db.Build(s)); err != nil {
					b.Fatal(err)
				}
			}
		}
		reportPerTool(b, len(tools))
	})
	b.Run("engine=bleve", func(b *testing.B) {
		in := bleveInputs(tools)
		m := newBleveMapping()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			idx, err := buildBleve(m, in)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = idx.Close()
			b.StartTimer()
		}
		reportPerTool(b, len(tools))
	})
}

// reportPerTool reports the timed duration per indexed tool.
func reportPerTool(b *testing.B, tools int) {
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tools), "ns/tool")
}
