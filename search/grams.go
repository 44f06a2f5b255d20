package search

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// gramIndex finds the keys within a few edits of a string. Each key is
// indexed by the distinct character bigrams of its padded form (^key$);
// a lookup counts, per key, the bigrams it shares with the query and
// measures the distance only of keys that can be close: one edit changes at
// most three of a string's bigrams (a swap of two runes), so a key within k
// edits of q shares at least |bigrams(q)| − 3k of q's bigrams and differs
// from q in length by at most k runes.
//
// Keys are added and removed in place. gramIndex is not safe for
// concurrent writes; the Index's lock guards it.
type gramIndex struct {
	ids   map[string]uint32
	keys  []gramKey // by id; a free id has an empty key
	free  []uint32
	grams map[uint64][]uint32 // bigram → ids of the keys holding it
}

type gramKey struct {
	s string
}

// gramPad marks the start and the end of a padded key: runes no name or
// term holds.
const (
	gramStart = rune(0x2)
	gramEnd   = rune(0x3)
)

// maxGramRunes bounds the keys and queries a gramIndex handles: a longer
// string is not a name anyone mistypes, and the bound keeps a lookup cheap.
const maxGramRunes = 64

func newGramIndex() gramIndex {
	return gramIndex{ids: make(map[string]uint32), grams: make(map[uint64][]uint32)}
}

// add indexes key; adding a key twice, or one over maxGramRunes runes, does
// nothing.
func (g *gramIndex) add(key string) {
	if _, ok := g.ids[key]; ok {
		return
	}
	if n := utf8.RuneCountInString(key); n == 0 || n > maxGramRunes {
		return
	}
	var rbuf [maxGramRunes]rune
	rs := appendRunes(rbuf[:0], key)
	var id uint32
	if n := len(g.free); n > 0 {
		id = g.free[n-1]
		g.free = g.free[:n-1]
	} else {
		id = uint32(len(g.keys))
		g.keys = append(g.keys, gramKey{})
	}
	g.keys[id] = gramKey{s: key}
	g.ids[key] = id
	var buf [maxGramRunes + 1]uint64
	for _, gr := range distinctGrams(buf[:0], rs) {
		g.grams[gr] = append(g.grams[gr], id)
	}
}

// remove drops key, if indexed.
func (g *gramIndex) remove(key string) {
	id, ok := g.ids[key]
	if !ok {
		return
	}
	var buf [maxGramRunes + 1]uint64
	var rbuf [maxGramRunes]rune
	for _, gr := range distinctGrams(buf[:0], appendRunes(rbuf[:0], key)) {
		ids := g.grams[gr]
		if i := slices.Index(ids, id); i >= 0 {
			ids[i] = ids[len(ids)-1]
			ids = ids[:len(ids)-1]
		}
		if len(ids) == 0 {
			delete(g.grams, gr)
		} else {
			g.grams[gr] = ids
		}
	}
	delete(g.ids, key)
	g.keys[id] = gramKey{}
	g.free = append(g.free, id)
}

// gramScratch is a lookup's working memory, pooled with the query's.
type gramScratch struct {
	// seen[id] == epoch marks a key already a candidate of this lookup.
	seen    []uint32
	epoch   uint32
	shared  []uint16 // bigrams shared with the query, per key id (similar)
	touched []uint32
	grams   []uint64
	runes   []rune
	key     []rune
	rows    [3][]int
}

// within calls fn with every key at most k edits from q, and its distance.
// Keys come in no particular order; the callers sort what they keep.
//
// A key within k edits shares at least |bigrams(q)| − 3k of q's bigrams,
// so it holds at least one of any 3k+1 of them (prefix filtering): only
// the postings of q's 3k+1 rarest bigrams are read, and their keys
// measured. k must leave at least one bigram to share (q of at least 3k
// runes), else nothing is found.
func (g *gramIndex) within(sc *gramScratch, q string, k int, fn func(key string, dist int)) {
	sc.runes = appendRunes(sc.runes[:0], q)
	if k <= 0 || len(sc.runes) == 0 || len(sc.runes) > maxGramRunes {
		return
	}
	sc.grams = distinctGrams(sc.grams[:0], sc.runes)
	prefix := 3*k + 1
	if prefix >= len(sc.grams) {
		return
	}
	slices.SortFunc(sc.grams, func(a, b uint64) int { return len(g.grams[a]) - len(g.grams[b]) })
	sc.nextEpoch(len(g.keys))
	for _, gr := range sc.grams[:prefix] {
		for _, id := range g.grams[gr] {
			if sc.seen[id] == sc.epoch {
				continue
			}
			sc.seen[id] = sc.epoch
			key := g.keys[id].s
			if n := len(key); n < len(sc.runes)-k || n > 4*(len(sc.runes)+k) {
				continue // too short or too long in bytes to be close in runes
			}
			sc.key = appendRunes(sc.key[:0], key)
			if d := boundedDistance(sc.runes, sc.key, k, &sc.rows); d <= k {
				fn(key, d)
			}
		}
	}
}

// nextEpoch starts a lookup over n keys: seen marks nothing of it yet.
func (sc *gramScratch) nextEpoch(n int) {
	if len(sc.seen) < n {
		sc.seen = append(sc.seen, make([]uint32, n-len(sc.seen))...)
	}
	sc.epoch++
	if sc.epoch == 0 { // wrapped: forget every old mark
		clear(sc.seen)
		sc.epoch = 1
	}
}

// similar calls fn with the keys sharing the largest fraction of their
// bigrams with q (Dice's coefficient, at least minDice), at most n of them,
// best first, with their distance to q. It serves suggestions, whose
// misspellings may be too far for within's bound.
func (g *gramIndex) similar(sc *gramScratch, q string, n int, minDice float64, fn func(key string, dist int)) {
	sc.runes = appendRunes(sc.runes[:0], q)
	if n <= 0 || len(sc.runes) == 0 || len(sc.runes) > maxGramRunes {
		return
	}
	sc.grams = distinctGrams(sc.grams[:0], sc.runes)
	g.count(sc)
	type cand struct {
		id   uint32
		dice float64
	}
	var cands []cand
	var buf [maxGramRunes + 1]uint64
	for _, id := range sc.touched {
		shared := float64(sc.shared[id])
		sc.shared[id] = 0
		sc.key = appendRunes(sc.key[:0], g.keys[id].s)
		keyGrams := len(distinctGrams(buf[:0], sc.key))
		if dice := 2 * shared / float64(len(sc.grams)+keyGrams); dice >= minDice {
			cands = append(cands, cand{id, dice})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.dice != b.dice {
			if a.dice > b.dice {
				return -1
			}
			return 1
		}
		return strings.Compare(g.keys[a.id].s, g.keys[b.id].s)
	})
	for _, c := range cands[:min(n, len(cands))] {
		key := g.keys[c.id].s
		sc.key = appendRunes(sc.key[:0], key)
		fn(key, boundedDistance(sc.runes, sc.key, maxGramRunes, &sc.rows))
	}
}

// count tallies, in sc.shared, the bigrams of sc.grams each key holds, and
// lists the keys holding any in sc.touched.
func (g *gramIndex) count(sc *gramScratch) {
	if cap(sc.shared) < len(g.keys) {
		sc.shared = make([]uint16, len(g.keys))
	}
	sc.shared = sc.shared[:len(g.keys)]
	sc.touched = sc.touched[:0]
	for _, gr := range sc.grams {
		for _, id := range g.grams[gr] {
			if sc.shared[id] == 0 {
				sc.touched = append(sc.touched, id)
			}
			sc.shared[id]++
		}
	}
}

// distinctGrams appends the distinct bigrams of ^rs$ to dst, sorted.
func distinctGrams(dst []uint64, rs []rune) []uint64 {
	start := len(dst)
	prev := gramStart
	for _, r := range rs {
		dst = append(dst, uint64(uint32(prev))<<32|uint64(uint32(r)))
		prev = r
	}
	dst = append(dst, uint64(uint32(prev))<<32|uint64(uint32(gramEnd)))
	slices.Sort(dst[start:])
	return append(dst[:start], slices.Compact(dst[start:])...)
}

func appendRunes(dst []rune, s string) []rune {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		dst = append(dst, r)
		s = s[size:]
	}
	return dst
}
