package eval

import (
	"math"
	"testing"

	"github.com/quiver-go/quiver/search"
)

// fixedRanker returns a fixed list of names per query and records the
// limits it was asked for.
type fixedRanker struct {
	results map[string][]string
	limits  []int
}

func (f *fixedRanker) Search(query string, limit int) []search.Hit {
	f.limits = append(f.limits, limit)
	var hits []search.Hit
	for i, name := range f.results[query] {
		hits = append(hits, search.Hit{Name: name, Score: float64(100 - i), Tier: search.TierScored})
	}
	return hits
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + string(rune('a'+i))
	}
	return out
}

const tolerance = 1e-6

func near(a, b float64) bool { return math.Abs(a-b) < tolerance }

// The expected values below were computed by hand from the definitions:
// DCG = Σ 1/log2(rank+1) over relevant hits in the top 10; 1/log2(2) = 1,
// 1/log2(3) = 0.6309297536, 1/log2(4) = 0.5, 1/log2(8) = 1/3.
func TestScore(t *testing.T) {
	for _, c := range []struct {
		name     string
		hits     []string
		relevant []string
		want     Metrics
	}{
		{"first", []string{"A", "X"}, []string{"A"}, Metrics{NDCG10: 1, Recall5: 1, Recall10: 1, MRR10: 1}},
		{"third", []string{"X", "Y", "A"}, []string{"A"}, Metrics{NDCG10: 0.5, Recall5: 1, Recall10: 1, MRR10: 1.0 / 3}},
		{
			// ranks 2 and 7: DCG = 0.6309297536 + 1/3 = 0.9642630870;
			// IDCG = 1 + 0.6309297536 = 1.6309297536; nDCG = 0.5912352048.
			"two relevant at 2 and 7",
			[]string{"X", "A", "Y", "Z", "W", "V", "B", "U"}, []string{"A", "B"},
			Metrics{NDCG10: 0.5912352048, Recall5: 0.5, Recall10: 1, MRR10: 0.5},
		},
		{
			"rank 11 is outside the cutoff",
			append(names("x", 10), "A"), []string{"A"},
			Metrics{},
		},
		{"no hits", nil, []string{"A"}, Metrics{}},
		{
			// A repeated hit counts once: DCG = 1, IDCG = 1.6309297536.
			"repeated hit", []string{"A", "A"}, []string{"A", "B"},
			Metrics{NDCG10: 0.6131471928, Recall5: 0.5, Recall10: 0.5, MRR10: 1},
		},
		{
			// 12 relevant, the top 10 all relevant: the ideal DCG uses
			// min(12, 10) = 10 hits, so nDCG is 1 while recall is 10/12.
			"more relevant than the cutoff", names("r", 12)[:10], names("r", 12),
			Metrics{NDCG10: 1, Recall5: 5.0 / 12, Recall10: 10.0 / 12, MRR10: 1},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			rel := make(map[string]bool)
			for _, n := range c.relevant {
				rel[n] = true
			}
			var hits []search.Hit
			for _, n := range c.hits {
				hits = append(hits, search.Hit{Name: n})
			}
			got := score(hits, rel)
			if !near(got.NDCG10, c.want.NDCG10) || !near(got.Recall5, c.want.Recall5) ||
				!near(got.Recall10, c.want.Recall10) || !near(got.MRR10, c.want.MRR10) {
				t.Errorf("score = %+v; want %+v", got, c.want)
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	r := &fixedRanker{results: map[string][]string{
		"q1": {"A", "X"},
		"q2": {"X", "Y", "A"},
		"q3": {"X", "A", "Y", "Z", "W", "V", "B", "U"},
		"q4": append(names("x", 10), "A"),
		"q5": {"Unknown"},
		"q6": {"A"},
	}}
	queries := []Query{
		{ID: "1", Query: "q1", Relevant: []string{"A"}},
		{ID: "2", Query: "q2", Relevant: []string{"A"}},
		{ID: "3", Query: "q3", Relevant: []string{"A", "B"}},
		{ID: "4", Query: "q4", Relevant: []string{"A"}},
		{ID: "5", Query: "q5", Relevant: []string{"Unknown"}},           // skipped
		{ID: "6", Query: "q6", Relevant: []string{"A", "NotInCatalog"}}, // only A counts
	}
	known := func(name string) bool { return name == "A" || name == "B" }
	got := Evaluate(r, queries, known)
	// Per evaluated query (q1, q2, q3, q4, q6):
	//   nDCG@10   1, 0.5, 0.5912352048, 0, 1  → mean 3.0912352048/5
	//   Recall@5  1, 1, 0.5, 0, 1            → 3.5/5
	//   Recall@10 1, 1, 1, 0, 1              → 4/5
	//   MRR@10    1, 1/3, 0.5, 0, 1          → 2.8333333333/5
	want := Metrics{NDCG10: 0.6182470410, Recall5: 0.7, Recall10: 0.8, MRR10: 0.5666666667, Queries: 5, Skipped: 1}
	if !near(got.NDCG10, want.NDCG10) || !near(got.Recall5, want.Recall5) || !near(got.Recall10, want.Recall10) ||
		!near(got.MRR10, want.MRR10) || got.Queries != want.Queries || got.Skipped != want.Skipped {
		t.Errorf("Evaluate = %+v; want %+v", got, want)
	}
	if len(r.limits) != 5 {
		t.Errorf("ranker called %d times; want 5 (skipped queries are not run)", len(r.limits))
	}
	for _, l := range r.limits {
		if l != Cutoff {
			t.Errorf("ranker asked for limit %d; want %d", l, Cutoff)
		}
	}
}

func TestEvaluateNilKnownAndEmpty(t *testing.T) {
	r := &fixedRanker{results: map[string][]string{"q": {"Z", "A"}}}
	got := Evaluate(r, []Query{{ID: "1", Query: "q", Relevant: []string{"A"}}}, nil)
	// rank 2: nDCG = 0.6309297536, MRR = 0.5.
	if !near(got.NDCG10, 0.6309297536) || !near(got.MRR10, 0.5) || got.Queries != 1 || got.Skipped != 0 {
		t.Errorf("Evaluate with nil known = %+v", got)
	}
	if got := Evaluate(r, nil, nil); got != (Metrics{}) {
		t.Errorf("Evaluate of no queries = %+v; want zero", got)
	}
	none := func(string) bool { return false }
	if got := Evaluate(r, []Query{{ID: "1", Query: "q", Relevant: []string{"A"}}}, none); got != (Metrics{Skipped: 1}) {
		t.Errorf("Evaluate with nothing known = %+v; want only Skipped 1", got)
	}
}
