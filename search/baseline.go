package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Baseline is the comparison ranker, defined exactly:
//
//   - one field: the name, with _ - . read as spaces, then the description;
//   - tokens: the lower-cased runs of letters and digits (no identifier
//     splitting, no stemming, no stop words);
//   - Okapi BM25 with k1 = 1.2 and b = 0.75, each unique query token counted
//     once, IDF ln(1 + (N − df + 0.5)/(df + 0.5)) as in Lucene;
//   - no field weights and no name tiers; ties break by name.
//
// It exists to measure the default ranker against. It is safe for
// concurrent use.
type Baseline struct {
	mu       sync.RWMutex
	docs     []baselineDoc
	names    map[string]bool
	postings map[string][]baselinePosting
	totalLen int
}

type baselineDoc struct {
	name   string
	length int
}

type baselinePosting struct {
	doc int
	tf  int
}

const (
	baselineK1 = 1.2
	baselineB  = 0.75
)

// NewBaseline returns an empty baseline ranker.
func NewBaseline() *Baseline {
	return &Baseline{names: make(map[string]bool), postings: make(map[string][]baselinePosting)}
}

// Add indexes one tool; names must be non-empty and unique.
func (b *Baseline) Add(name, description string) error {
	if name == "" {
		return fmt.Errorf("search: baseline: empty tool name")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.names[name] {
		return fmt.Errorf("%w: %q", ErrDuplicate, name)
	}
	b.names[name] = true
	spaced := strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(name)
	toks := baselineTokens(spaced + " " + description)
	tf := make(map[string]int)
	for _, t := range toks {
		tf[t]++
	}
	d := len(b.docs)
	b.docs = append(b.docs, baselineDoc{name: name, length: len(toks)})
	b.totalLen += len(toks)
	for t, c := range tf {
		b.postings[t] = append(b.postings[t], baselinePosting{doc: d, tf: c})
	}
	return nil
}

// Search returns at most limit hits ([DefaultLimit] when limit <= 0), by
// score then name.
func (b *Baseline) Search(query string, limit int) []Hit {
	if limit <= 0 {
		limit = DefaultLimit
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if len(b.docs) == 0 {
		return nil
	}
	n := float64(len(b.docs))
	avg := float64(b.totalLen) / n
	scores := make(map[int]float64)
	seen := make(map[string]bool)
	for _, t := range baselineTokens(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := b.postings[t]
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := 1 - baselineB + baselineB*float64(b.docs[p.doc].length)/avg
			scores[p.doc] += idf * tf * (baselineK1 + 1) / (tf + baselineK1*norm)
		}
	}
	hits := make([]Hit, 0, len(scores))
	for d, s := range scores {
		hits = append(hits, Hit{Name: b.docs[d].name, Score: s, Tier: TierScored})
	}
	slices.SortFunc(hits, func(x, y Hit) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// baselineTokens returns the lower-cased runs of letters and digits of s.
func baselineTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
