package search_test

import (
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/quiver-go/quiver/internal/benchdata"
	"github.com/quiver-go/quiver/search"
)

// Speed of the default Index side by side with the bleve peer, in one run,
// on catalogs built from bench/data/catalogs/toolsdk.json. From the bench
// folder:
//
//	go test -run NONE -bench BenchmarkSearch -benchtime 3000x ./search/
//	go test -run NONE -bench BenchmarkIndexBuild -benchtime 3x ./search/
//
// BenchmarkIndexBuild builds a whole 10k-tool index per iteration (the
// bleve one takes seconds), so give it a small -benchtime.

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
	all := benchdata.Queries(tb)
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
// toolsdk.json's tools replicated with "#k" name suffixes (see
// benchdata.Replicate).
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
	tools := benchdata.Tools(b, benchdata.ToolSDKCatalogFile)
	queries := speedQueries(b)
	for _, size := range catalogSizes {
		b.Run("tools="+size.name, func(b *testing.B) {
			cat := benchdata.Replicate(tools, size.tools)
			var ix *search.Index
			b.Run("engine=quiver", func(b *testing.B) {
				if ix == nil {
					ix = benchdata.NewIndex(b, cat)
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

// buildPrebuilt indexes docs in a new default Index.
func buildPrebuilt(b *testing.B, docs []search.Document) *search.Index {
	ix, err := search.NewIndex(search.DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range docs {
		if err := ix.Add(d); err != nil {
			b.Fatal(err)
		}
	}
	return ix
}

// buildSize is the catalog size of BenchmarkIndexBuild.
const buildSize = 10_000

// BenchmarkIndexBuild measures building a whole 10k-tool index per
// iteration and reports ns/tool besides ns/op:
//   - engine=quiver/docs=prebuilt: NewIndex and Add of Documents analyzed
//     beforehand (as generated code ships them);
//   - engine=quiver/docs=prebuilt+first-fuzzy-search: the same, then one
//     search of a misspelled name, which builds the fuzzy name tier's
//     index (built on first use, not by Add);
//   - engine=quiver/docs=analyzed: the same including analysis with a fresh
//     DocumentBuilder per build (as a registry indexes runtime tools);
//   - engine=bleve: a scorch BM25 index fed in batches of 1,000 (its
//     analysis is part of indexing), for reference.
func BenchmarkIndexBuild(b *testing.B) {
	tools := benchdata.Replicate(benchdata.Tools(b, benchdata.ToolSDKCatalogFile), buildSize)
	docs := make([]search.Document, len(tools))
	for i, t := range tools {
		docs[i] = search.NewDocument(t.Source())
	}
	b.Run("engine=quiver/docs=prebuilt", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			buildPrebuilt(b, docs)
		}
		reportPerTool(b, len(tools))
	})
	// The fuzzy name tier's index is built by the first search that
	// reaches the tier, not by Add: this is that cost, on top of the
	// build, with one misspelled name as the first search.
	b.Run("engine=quiver/docs=prebuilt+first-fuzzy-search", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			ix := buildPrebuilt(b, docs)
			searchSink += len(ix.Search("fetch_webpge", search.DefaultLimit))
		}
		reportPerTool(b, len(tools))
	})
	b.Run("engine=quiver/docs=analyzed", func(b *testing.B) {
		srcs := make([]search.Source, len(tools))
		for i, t := range tools {
			srcs[i] = t.Source()
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
