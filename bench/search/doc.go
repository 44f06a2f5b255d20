// Package search compares Quiver's search engine (package
// github.com/quiver-go/quiver/search) with a peer engine, bleve, on the
// repository's benchmark data (bench/data). It holds tests and benchmarks
// only, in the benchmark module, so that bleve and its modules stay out of
// the root module that applications import.
//
//   - TestMetaToolAboveBleve: on all MetaTool queries, the default ranker
//     scores a higher nDCG@10 than the bleve peer (the root module's
//     TestMetaToolQuality checks the absolute target and the gain over the
//     baseline);
//   - TestMetaToolTypos: the rankers on the MetaTool queries clean and with
//     the committed typos (benchdata.TypoQueries), with bleve's own fuzzy
//     matching on a subset; on typos the default ranker scores a higher
//     nDCG@10 than plain bleve;
//   - TestMetaToolAmongDistractors: the MetaTool queries (every 4th) with
//     ToolSDK's 6,344 tools added as distractors, and how often a
//     distractor of the labelled tool's domain ranks first;
//   - TestBlevePeerScoresWithBM25, TestBlevePeerRanks: the peer is the fair
//     BM25 deployment it claims to be; TestBleveFuzzyPeerForgives: its
//     fuzzy variant finds tools through typos;
//   - BenchmarkSearch, BenchmarkIndexBuild: speed side by side with bleve,
//     in one run.
//
// Run from the bench folder:
//
//	go test -run 'MetaTool|BlevePeer|BleveFuzzy' -v ./search/
//	go test -count=1 -run 'TestMetaToolTypos|TestMetaToolAmongDistractors' -v ./search/
//	go test -run NONE -bench BenchmarkSearch -benchtime 3000x ./search/
//	go test -run NONE -bench BenchmarkIndexBuild -benchtime 3x ./search/
package search
