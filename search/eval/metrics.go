package eval

import (
	"math"

	"github.com/quiver-go/quiver/search"
)

// Cutoff is the number of hits Evaluate asks a ranker for.
const Cutoff = 10

// Metrics are means over the evaluated queries, under binary relevance.
type Metrics struct {
	// NDCG10 is the normalized discounted cumulative gain of the top 10:
	// DCG = Σ rel_i / log2(i+1) over ranks i = 1..10, divided by the DCG of
	// an ideal ranking of min(|relevant|, 10) relevant hits.
	NDCG10 float64
	// Recall5 is |relevant ∩ top 5| / |relevant|.
	Recall5 float64
	// Recall10 is |relevant ∩ top 10| / |relevant|.
	Recall10 float64
	// MRR10 is 1/rank of the first relevant hit in the top 10, 0 if none.
	MRR10 float64
	// Queries is the number of queries evaluated.
	Queries int
	// Skipped is the number of queries left with no known relevant tool.
	Skipped int
}

// Evaluate runs every query through r with limit Cutoff and returns the mean
// metrics. Relevant names for which known returns false are ignored (a nil
// known accepts every name); queries left with none are skipped and counted
// in Skipped. Hits beyond Cutoff and repeated hit names are disregarded.
// With no evaluated query every mean is 0.
//
// Evaluate does not say which names it ignored: to name them, and to refuse
// a score that leaves some out, call Match first and give Evaluate the
// queries it returns with a nil known.
func Evaluate(r search.Ranker, queries []Query, known func(name string) bool) Metrics {
	matched, cov := Match(queries, knownResolver(known))
	m := Metrics{Skipped: len(cov.Skipped)}
	relevant := make(map[string]bool)
	for _, q := range matched {
		clear(relevant)
		for _, name := range q.Relevant {
			relevant[name] = true
		}
		s := score(r.Search(q.Query, Cutoff), relevant)
		m.NDCG10 += s.NDCG10
		m.Recall5 += s.Recall5
		m.Recall10 += s.Recall10
		m.MRR10 += s.MRR10
		m.Queries++
	}
	if m.Queries > 0 {
		n := float64(m.Queries)
		m.NDCG10 /= n
		m.Recall5 /= n
		m.Recall10 /= n
		m.MRR10 /= n
	}
	return m
}

// score computes one query's metrics (Queries and Skipped left zero).
// relevant must be non-empty; its values are not modified.
func score(hits []search.Hit, relevant map[string]bool) Metrics {
	var s Metrics
	seen := make(map[string]bool, Cutoff)
	var dcg float64
	found := 0
	for i, h := range hits {
		if i == Cutoff {
			break
		}
		if !relevant[h.Name] || seen[h.Name] {
			continue
		}
		seen[h.Name] = true
		rank := i + 1
		dcg += 1 / math.Log2(float64(rank)+1)
		found++
		if s.MRR10 == 0 {
			s.MRR10 = 1 / float64(rank)
		}
		if rank <= 5 {
			s.Recall5++
		}
	}
	var idcg float64
	for rank := 1; rank <= min(len(relevant), Cutoff); rank++ {
		idcg += 1 / math.Log2(float64(rank)+1)
	}
	s.NDCG10 = dcg / idcg
	s.Recall5 /= float64(len(relevant))
	s.Recall10 = float64(found) / float64(len(relevant))
	return s
}
