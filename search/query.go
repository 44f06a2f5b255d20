package search

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// scratch is the per-query working memory, pooled so that a query allocates
// only its result slice.
type scratch struct {
	acc         []float64 // score per slot
	touched     []uint32  // slots with a score, in first-touch order
	terms       []queryTerm
	tiered      []candidate
	top         []candidate
	buf         []byte
	fuzz        fuzzScratch
	corrections []uint32 // term ids, see correct
	// explain makes queryTerms record each term's query word.
	explain bool
}

// queryTerm is one vocabulary term a query scores with: a query word's
// own term (weight 1), or a correction of a misspelled word
// (correctionWeight, dist edits away).
type queryTerm struct {
	id     uint32
	weight float64
	dist   int
	word   string // the query word, kept for Explain only
}

type candidate struct {
	slot  uint32
	score float64
	tier  Tier
	// rank is a fuzzy name hit's fuzzyRank.
	rank uint8
}

// Search returns at most limit hits ([DefaultLimit] when limit <= 0): first the
// documents whose names equal the query (exact, then case-folded, then
// separator-folded) or, when none does, whose names are a few edits from it
// (fuzzy-name), then the documents sharing terms with the query by BM25F
// score; ties break by name. Each unique query term counts once.
func (ix *Index) Search(query string, limit int) []Hit {
	var hits []Hit
	ix.withRanking(query, limit, false, func(_ *scratch, ranked []candidate) {
		hits = make([]Hit, len(ranked))
		for i, c := range ranked {
			hits[i] = Hit{Name: ix.slots[c.slot].name, Score: c.score, Tier: c.tier}
		}
	})
	return hits
}

// withRanking ranks query under the read lock and calls fn with the best
// limit candidates ([DefaultLimit] when limit <= 0), in rank order, and
// the scratch they came from; it does not call fn when the index is empty.
func (ix *Index) withRanking(query string, limit int, explain bool, fn func(sc *scratch, ranked []candidate)) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 {
		return
	}
	sc := ix.getScratch(explain)
	defer ix.scratch.Put(sc)
	fn(sc, ix.rank(sc, query, limit))
}

// getScratch returns pooled working memory sized for the index. ix.mu is
// held.
func (ix *Index) getScratch(explain bool) *scratch {
	sc, _ := ix.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	sc.reset(len(ix.slots))
	sc.explain = explain
	return sc
}

// rank runs query and returns its best limit candidates in rank order:
// the name tiers' (sc.tiered), then the scored ones (sc.top). The result
// aliases sc. ix.mu is held.
func (ix *Index) rank(sc *scratch, query string, limit int) []candidate {
	ix.queryTerms(sc, query)
	ix.score(sc)
	ix.matchNames(sc, strings.TrimSpace(query))
	ix.selectTop(sc, limit)
	sc.tiered = append(sc.tiered, sc.top...)
	return sc.tiered[:min(limit, len(sc.tiered))]
}

func (sc *scratch) reset(slots int) {
	if cap(sc.acc) < slots {
		sc.acc = make([]float64, slots)
	}
	sc.acc = sc.acc[:slots]
	sc.touched = sc.touched[:0]
	sc.terms = sc.terms[:0]
	sc.tiered = sc.tiered[:0]
	sc.top = sc.top[:0]
}

// queryTerms lists in sc.terms the vocabulary terms query scores with:
// each word's term, or, for a word absent from the vocabulary, the terms
// it is within a typo of (see correct). A term counts once, at its best
// weight.
func (ix *Index) queryTerms(sc *scratch, query string) {
	forEachToken(query, func(tok []byte) {
		t := ix.stems.term(tok)
		if t == "" {
			return
		}
		if id, ok := ix.termIDs[t]; ok {
			sc.addTerm(queryTerm{id: id, weight: 1}, tok)
			return
		}
		for _, id := range ix.correct(sc, tok, t) {
			sc.addTerm(queryTerm{id: id, weight: correctionWeight, dist: 1}, tok)
		}
	})
}

// addTerm adds qt to sc.terms, or raises the weight of the same term.
func (sc *scratch) addTerm(qt queryTerm, word []byte) {
	for i := range sc.terms {
		if t := &sc.terms[i]; t.id == qt.id {
			if qt.weight > t.weight {
				t.weight, t.dist = qt.weight, qt.dist
				if sc.explain {
					t.word = string(word)
				}
			}
			return
		}
	}
	if sc.explain {
		qt.word = string(word)
	}
	sc.terms = append(sc.terms, qt)
}

// score accumulates BM25F scores of sc.terms into sc.acc:
//
//	score(d) = Σ_t weight(t) · idf(t) · (k1+1) · tf'(t,d) / (k1 + tf'(t,d))
//	tf'(t,d) = Σ_f w_f · tf_f(t,d) / (1 − b_f + b_f · len_f(d) / avglen_f)
//	idf(t)   = ln(1 + (N − df + 0.5) / (df + 0.5))
//
// weight(t) is 1 for a word's own term and correctionWeight for a typo's
// correction.
func (ix *Index) score(sc *scratch) {
	if len(sc.terms) == 0 {
		return
	}
	p := &ix.params
	n := float64(ix.live)
	var invAvg [NumFields]float64
	for f := range NumFields {
		if ix.totalLen[f] > 0 {
			invAvg[f] = n / float64(ix.totalLen[f])
		}
	}
	k1 := p.K1
	for _, qt := range sc.terms {
		ps := ix.postings[qt.id]
		df := float64(len(ps))
		idf := qt.weight * math.Log(1+(n-df+0.5)/(df+0.5))
		for i := range ps {
			pt := &ps[i]
			lengths := &ix.slots[pt.slot].lengths
			var tf float64
			for f := range NumFields {
				if c := pt.tf[f]; c != 0 {
					tf += p.Weights[f] * float64(c) / (1 - p.B[f] + p.B[f]*lengths[f]*invAvg[f])
				}
			}
			if tf == 0 {
				continue
			}
			if sc.acc[pt.slot] == 0 {
				sc.touched = append(sc.touched, pt.slot)
			}
			sc.acc[pt.slot] += idf * (k1 + 1) * tf / (k1 + tf)
		}
	}
}

// matchNames collects the name-tier hits of q into sc.tiered, best tier
// first, and takes them out of the scored candidates.
func (ix *Index) matchNames(sc *scratch, q string) {
	if q == "" {
		return
	}
	ix.addTier(sc, ix.names.exact[q], TierExact)
	sc.buf = appendCaseFold(sc.buf[:0], q)
	ix.addTier(sc, ix.names.caseFolded[string(sc.buf)], TierCaseFolded)
	sc.buf = appendSepFold(sc.buf[:0], q)
	if len(sc.buf) > 0 {
		ix.addTier(sc, ix.names.sepFolded[string(sc.buf)], TierSeparatorFolded)
	}
	ix.matchFuzzyNames(sc, q, sc.buf)
	slices.SortFunc(sc.tiered, ix.compare)
}

func (ix *Index) addTier(sc *scratch, slots []uint32, tier Tier) {
	for _, s := range slots {
		if slices.ContainsFunc(sc.tiered, func(c candidate) bool { return c.slot == s }) {
			continue
		}
		score := sc.acc[s]
		if score < 0 {
			score = 0
		}
		sc.tiered = append(sc.tiered, candidate{slot: s, score: score, tier: tier})
		// Mark the slot so selectTop skips it; its score is kept above.
		sc.acc[s] = -1
	}
}

// selectTop keeps the best limit scored candidates in sc.top, in rank order,
// and clears sc.acc for the next query.
func (ix *Index) selectTop(sc *scratch, limit int) {
	for _, s := range sc.touched {
		score := sc.acc[s]
		sc.acc[s] = 0
		if score <= 0 {
			continue
		}
		c := candidate{slot: s, score: score, tier: TierScored}
		if len(sc.top) < limit {
			sc.top = append(sc.top, c)
			if len(sc.top) == limit {
				slices.SortFunc(sc.top, ix.compareScored)
			}
			continue
		}
		// sc.top is full and sorted: replace the worst if c beats it.
		if ix.compareScored(c, sc.top[limit-1]) < 0 {
			i, _ := slices.BinarySearchFunc(sc.top, c, ix.compareScored)
			copy(sc.top[i+1:], sc.top[i:limit-1])
			sc.top[i] = c
		}
	}
	for _, c := range sc.tiered {
		sc.acc[c.slot] = 0
	}
	if len(sc.top) < limit {
		slices.SortFunc(sc.top, ix.compareScored)
	}
}

// compare orders candidates by tier, then fuzzyRank (fuzzy name hits),
// then score (descending), then name.
func (ix *Index) compare(a, b candidate) int {
	if c := cmp.Compare(a.tier, b.tier); c != 0 {
		return c
	}
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return strings.Compare(ix.slots[a.slot].name, ix.slots[b.slot].name)
}

// compareScored is compare for scored candidates: score (descending), then
// name.
func (ix *Index) compareScored(a, b candidate) int {
	if a.score != b.score {
		if a.score > b.score {
			return -1
		}
		return 1
	}
	return strings.Compare(ix.slots[a.slot].name, ix.slots[b.slot].name)
}
