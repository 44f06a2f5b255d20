package search

import (
	"math"
	"slices"
	"strings"
)

// Explanation says why one hit ranks where it does: the hit itself, the
// name its name tier matched, and each query term's BM25F contribution by
// field.
type Explanation struct {
	Hit
	// Name is the tool name (the document's name or an alias) the hit's
	// name tier matched; empty for a scored hit.
	Name string
	// NameDistance is how many edits the query, separator-folded, is from
	// Name separator-folded, or from the part of it after a . or /
	// ([TierFuzzyName]); 0 for the other tiers.
	NameDistance int
	// NamePart reports that a fuzzy hit matched the part of Name after a
	// namespace separator rather than the whole name.
	NamePart bool
	// Terms are the query terms found in the document, in query order.
	// Their Scores add up to the hit's Score.
	Terms []TermMatch
}

// TermMatch is one query term's share of a hit's score.
type TermMatch struct {
	// Word is the query word as the analyzer folded it.
	Word string
	// Term is the vocabulary term it matched: the word's own term, or a
	// correction (Distance > 0) of a word absent from the vocabulary.
	Term string
	// Distance is the edits between Word (or its stem) and Term.
	Distance int
	// Weight scales the term's score: 1, or less for a correction.
	Weight float64
	// Score is the term's contribution to the hit's score.
	Score float64
	// Fields split Score between the fields holding the term, in
	// proportion to their weighted, length-normalized term frequencies
	// (BM25F saturates their sum, so a field's share is exact only as a
	// share).
	Fields []FieldMatch
}

// FieldMatch is one field's share of a term's score.
type FieldMatch struct {
	Field Field
	// Count is the term's occurrences in the field.
	Count int
	// Score is the field's share of the term's score.
	Score float64
}

// Explain ranks query as [Index.Search] does and explains each hit; the
// hits, in order, are exactly Search's.
func (ix *Index) Explain(query string, limit int) []Explanation {
	var out []Explanation
	ix.withRanking(query, limit, true, func(sc *scratch, ranked []candidate) {
		out = make([]Explanation, len(ranked))
		for i, c := range ranked {
			sl := &ix.slots[c.slot]
			e := Explanation{Hit: Hit{Name: sl.name, Score: c.score, Tier: c.tier}}
			e.Name, e.NameDistance, e.NamePart = ix.matchedName(sl, c, query)
			e.Terms = ix.termMatches(sc, c.slot)
			out[i] = e
		}
	})
	return out
}

// matchedName finds which of a slot's names its name tier matched. ix.mu
// is held.
func (ix *Index) matchedName(sl *slot, c candidate, query string) (name string, dist int, part bool) {
	if c.tier == TierScored {
		return "", 0, false
	}
	names := append([]string{sl.name}, sl.aliases...)
	q := strings.TrimSpace(query)
	for _, n := range names {
		switch c.tier {
		case TierExact:
			if n == q {
				return n, 0, false
			}
		case TierCaseFolded:
			if string(appendCaseFold(nil, n)) == string(appendCaseFold(nil, q)) {
				return n, 0, false
			}
		case TierSeparatorFolded:
			if string(appendSepFold(nil, n)) == string(appendSepFold(nil, q)) {
				return n, 0, false
			}
		case TierFuzzyName:
			// The name, or part, nearest the query at the hit's rank;
			// ties go to the smallest key, in name order.
			q := string(appendSepFold(nil, q))
			best := ""
			forEachNamePart(n, func(key []byte, isPart bool) {
				if k := string(key); fuzzyRank(EditDistance(q, k), isPart) == c.rank && (best == "" || k < best) {
					best = k
				}
			})
			if best != "" {
				return n, int(c.rank / 2), c.rank%2 == 1
			}
		}
	}
	return "", 0, false
}

// termMatches splits the slot's score between sc.terms and fields, with
// the formula of score. ix.mu is held.
func (ix *Index) termMatches(sc *scratch, s uint32) []TermMatch {
	p := &ix.params
	n := float64(ix.live)
	lengths := &ix.slots[s].lengths
	var out []TermMatch
	for _, qt := range sc.terms {
		i := slices.IndexFunc(ix.postings[qt.id], func(pt posting) bool { return pt.slot == s })
		if i < 0 {
			continue
		}
		pt := ix.postings[qt.id][i]
		var parts [NumFields]float64
		var tf float64
		for f := range NumFields {
			if c := pt.tf[f]; c != 0 && ix.totalLen[f] > 0 {
				invAvg := n / float64(ix.totalLen[f])
				parts[f] = p.Weights[f] * float64(c) / (1 - p.B[f] + p.B[f]*lengths[f]*invAvg)
				tf += parts[f]
			}
		}
		if tf == 0 {
			continue
		}
		df := float64(len(ix.postings[qt.id]))
		score := qt.weight * math.Log(1+(n-df+0.5)/(df+0.5)) * (p.K1 + 1) * tf / (p.K1 + tf)
		m := TermMatch{Word: qt.word, Term: ix.terms[qt.id], Distance: qt.dist, Weight: qt.weight, Score: score}
		for f := range NumFields {
			if parts[f] > 0 {
				m.Fields = append(m.Fields, FieldMatch{Field: Field(f), Count: int(pt.tf[f]), Score: score * parts[f] / tf})
			}
		}
		out = append(out, m)
	}
	return out
}
