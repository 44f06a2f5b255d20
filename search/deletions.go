package search

import "unicode/utf8"

// deletionIndex finds the vocabulary terms within one edit of a word by
// symmetric deletion: each term is filed under the hash of itself and of
// each string it becomes with one rune deleted; a word's candidates are
// the terms filed under the hashes of its own one-deletion neighbourhood,
// which include every term one insertion, deletion, substitution or swap
// away. Candidates are verified with boundedDistance, which also rejects
// hash collisions. Lookups cost a word's length in map reads, however
// large the vocabulary.
//
// Terms shorter than minCorrectedRunes−1 are not filed: no word short
// enough to be left uncorrected (minCorrectedRunes) can reach them.
type deletionIndex struct {
	dels idMultimap // neighbourhood hash → term ids
}

func newDeletionIndex() deletionIndex {
	return deletionIndex{dels: newIDMultimap()}
}

// minCorrectedRunes is the shortest query word read as a vocabulary term
// within one edit; see Index.correct.
const minCorrectedRunes = 5

// filed reports whether term belongs in the index.
func filedTerm(term string) bool {
	n := utf8.RuneCountInString(term)
	return n >= minCorrectedRunes-1 && n <= maxFuzzyRunes
}

func (d *deletionIndex) add(id uint32, term string) {
	if !filedTerm(term) {
		return
	}
	var rbuf [maxFuzzyRunes]rune
	forEachDeletion(appendRunes(rbuf[:0], term), func(h uint64) { d.dels.add(h, id) })
}

func (d *deletionIndex) remove(id uint32, term string) {
	if !filedTerm(term) {
		return
	}
	var rbuf [maxFuzzyRunes]rune
	forEachDeletion(appendRunes(rbuf[:0], term), func(h uint64) { d.dels.remove(h, id) })
}

// candidates calls fn with each term id filed under q's one-deletion
// neighbourhood, possibly more than once.
func (d *deletionIndex) candidates(q []rune, fn func(id uint32)) {
	forEachDeletion(q, func(h uint64) { d.dels.each(h, fn) })
}

// forEachDeletion calls fn with the hash of rs and of rs with each of its
// runes deleted in turn (FNV-1a over the runes).
func forEachDeletion(rs []rune, fn func(h uint64)) {
	const offset, prime = 14695981039346656037, 1099511628211
	for skip := -1; skip < len(rs); skip++ {
		h := uint64(offset)
		for i, r := range rs {
			if i == skip {
				continue
			}
			h = (h ^ uint64(r)) * prime
		}
		fn(h)
	}
}
