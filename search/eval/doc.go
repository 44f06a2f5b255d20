// Package eval measures how well a search.Ranker retrieves the tools that a
// labelled query set says are relevant.
//
// Queries are read from JSON Lines (ReadQueries), one object per line:
//
//	{"id": "metatool-00001", "query": "Can I find any peer-reviewed papers?", "relevant": ["ResearchHelper"]}
//
// Evaluate asks the ranker for the top 10 hits of each query and reports the
// mean nDCG@10, Recall@5, Recall@10 and MRR@10 under binary relevance.
// Relevant names the caller's catalog does not hold are ignored, and queries
// left with no relevant name are skipped and counted, so one query set can be
// run against partial catalogs without silently lowering the scores.
package eval
