package search

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Typo tolerance: the fuzzy name tier and fuzzy query terms. Both find
// their candidates with an index of neighbourhoods (segmentIndex for names,
// deletionIndex for terms) and measure them with the
// optimal-string-alignment distance (EditDistance).

// nameEdits is how many edits the fuzzy name tier forgives in a query of
// n runes (separator-folded): none under 4 runes (too many names are that
// close), one up to 7, two from 8.
func nameEdits(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// maxFuzzyNameWords is the most words a query may have for the fuzzy name
// tier to look at it: a name is one identifier, or a few words spelling
// one ("start export"); a longer query describes a task and is left to
// scoring.
const maxFuzzyNameWords = 3

// correctionWeight scales a vocabulary term's score when a misspelled
// query word is read as it: a corrected word counts half of one spelled
// right. Measured on MetaTool (docs/benchmarks.md): 0.5 keeps the clean
// queries' nDCG@10 (0.5709; 0.5625 at 1.0) and recovers most of what
// typos cost (0.4958 without corrections, 0.5356 at 0.5, 0.5424 at 0.7).
const correctionWeight = 0.5

// maxTermCorrections bounds the vocabulary terms one misspelled word is
// read as (the nearest, most frequent first).
const maxTermCorrections = 2

// wordCount counts the white-space-separated words of q, up to limit+1.
func wordCount(q string, limit int) int {
	n := 0
	in := false
	for _, r := range q {
		space := r == ' ' || r == '\t' || r == '\n' || r == '\r'
		if !space && !in {
			n++
			if n > limit {
				return n
			}
		}
		in = !space
	}
	return n
}

// matchFuzzyNames adds the fuzzy name tier's hits for q to sc.tiered:
// documents with a name, or a name part, within nameEdits of q
// separator-folded. It runs only when no other name tier matched: a
// query naming a tool is not corrected into its neighbours.
//
// sepFolded is q separator-folded, as the separator-folded tier folded it.
func (ix *Index) matchFuzzyNames(sc *scratch, q string, sepFolded []byte) {
	if len(sc.tiered) > 0 || wordCount(q, maxFuzzyNameWords) > maxFuzzyNameWords {
		return
	}
	folded := string(sepFolded)
	k := nameEdits(utf8.RuneCountInString(folded))
	if k == 0 {
		return
	}
	f := ix.fuzzyIndex()
	f.segs.within(&sc.fuzz, folded, k, func(key string, dist int) {
		ix.forEachNamed(f, key, func(s uint32, part bool) { ix.addFuzzy(sc, s, fuzzyRank(dist, part)) })
	})
}

// forEachNamed calls fn with each slot a fuzzy key names: as its whole
// name separator-folded (part false), or as a name part (part true).
func (ix *Index) forEachNamed(f *fuzzyNames, key string, fn func(s uint32, part bool)) {
	for _, s := range ix.names.sepFolded[key] {
		fn(s, false)
	}
	for _, s := range f.parts[key] {
		fn(s, true)
	}
}

// fuzzyRank orders fuzzy name hits: nearer first and, at one distance, a
// whole name before a name part (execute-code's typo finds execute_code
// before freecad-mcp.execute_code).
func fuzzyRank(dist int, part bool) uint8 {
	r := uint8(2 * dist)
	if part {
		r++
	}
	return r
}

// addFuzzy adds slot s to the fuzzy name tier at rank (fuzzyRank),
// keeping the best of its names.
func (ix *Index) addFuzzy(sc *scratch, s uint32, rank uint8) {
	for i := range sc.tiered {
		c := &sc.tiered[i]
		if c.slot == s {
			c.rank = min(c.rank, rank)
			return
		}
	}
	score := max(sc.acc[s], 0)
	sc.tiered = append(sc.tiered, candidate{slot: s, score: score, tier: TierFuzzyName, rank: rank})
	sc.acc[s] = -1
}

// correct returns the ids of the vocabulary terms the query word tok
// (folded), with term t absent from the vocabulary, is read as: the terms
// one edit from the word or from its stem, at most maxTermCorrections, the
// most frequent first. Words under minCorrectedRunes runes are not
// corrected: a shorter word is as often a different word as a misspelled
// one (measured on the typo-perturbed MetaTool queries,
// docs/benchmarks.md). ix.mu is held.
func (ix *Index) correct(sc *scratch, tok []byte, t string) []uint32 {
	out := sc.corrections[:0]
	if utf8.RuneCount(tok) < minCorrectedRunes || hasCJK(tok) {
		// A bigram of Han or Kana is not a typo of another.
		return out
	}
	visit := func(word []rune) {
		ix.vocab.candidates(word, func(id uint32) {
			if slices.Contains(out, id) {
				return
			}
			sc.fuzz.key = appendRunes(sc.fuzz.key[:0], ix.terms[id])
			if boundedDistance(word, sc.fuzz.key, 1, &sc.fuzz.rows) <= 1 {
				out = append(out, id)
			}
		})
	}
	sc.fuzz.runes = appendRunes(sc.fuzz.runes[:0], t)
	visit(sc.fuzz.runes)
	if string(tok) != t {
		sc.fuzz.runes = appendRunes(sc.fuzz.runes[:0], string(tok))
		visit(sc.fuzz.runes)
	}
	slices.SortFunc(out, func(a, b uint32) int {
		if da, db := len(ix.postings[a]), len(ix.postings[b]); da != db {
			return db - da
		}
		return strings.Compare(ix.terms[a], ix.terms[b])
	})
	if len(out) > maxTermCorrections {
		out = out[:maxTermCorrections]
	}
	sc.corrections = out
	return out
}

func hasCJK(b []byte) bool {
	for _, r := range string(b) {
		if isCJK(r) {
			return true
		}
	}
	return false
}
