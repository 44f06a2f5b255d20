// Package eval measures how well a search.Ranker retrieves the tools that a
// labelled query set says are relevant.
//
// Queries are read from JSON Lines (ReadQueries), one object per line:
//
//	{"id": "metatool-00001", "query": "Can I find any peer-reviewed papers?", "relevant": ["ResearchHelper"]}
//
// Evaluate asks the ranker for the top 10 hits of each query and reports the
// mean nDCG@10, Recall@5, Recall@10 and MRR@10 under binary relevance.
// Match resolves each label against a catalog and returns a Coverage that
// names every label matching no tool and every query left with none.
// Leaving either out of a score inflates it (a mistyped label dropped from
// a query can raise its recall to 1), so a caller that reports scores
// reports the Coverage with them and treats an incomplete one as a failure
// unless told otherwise, as quiver search eval does. Evaluate scores the
// queries it is given, ignoring the names its known function rejects and
// counting the queries it skips.
package eval
