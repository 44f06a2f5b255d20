package search

import (
	"unicode/utf8"
)

// segmentIndex finds the names within one or two edits of a query by the
// pigeonhole principle: each key is cut into numSegments segments of
// nearly equal length, and filed under each segment (with the key's length
// and the segment's place). An edit touches one segment, a swap of two
// neighbours at most two, so a key within k ≤ 2 edits of q keeps at least
// one of its 2k+1 ≤ numSegments segments intact, and that segment appears
// in q shifted by at most k runes (the insertions and deletions before
// it). A lookup probes, for each key length within k of q's, each
// segment's place shifted by −k..k, and measures only the keys it finds:
// a few dozen map reads and a handful of distance checks however many
// names there are.
//
// Keys are added and removed in place; the Index's lock guards it.
type segmentIndex struct {
	ids  map[string]uint32
	keys []string // by id; "" is a free id
	free []uint32
	segs idMultimap // segmentHash → ids of the keys holding it
}

// numSegments is 2k+1 for the largest k the fuzzy tier forgives (2).
const numSegments = 5

// maxFuzzyRunes bounds the keys and queries the fuzzy name tier handles:
// a longer string is not a name anyone types, and the bound keeps every
// buffer on the stack.
const maxFuzzyRunes = 64

func newSegmentIndex() segmentIndex {
	return segmentIndex{ids: make(map[string]uint32), segs: newIDMultimap()}
}

// add files key; adding a key twice, or one over maxFuzzyRunes runes,
// does nothing.
func (x *segmentIndex) add(key string) {
	if _, ok := x.ids[key]; ok {
		return
	}
	if n := utf8.RuneCountInString(key); n == 0 || n > maxFuzzyRunes {
		return
	}
	var id uint32
	if n := len(x.free); n > 0 {
		id = x.free[n-1]
		x.free = x.free[:n-1]
		x.keys[id] = key
	} else {
		id = uint32(len(x.keys))
		x.keys = append(x.keys, key)
	}
	x.ids[key] = id
	var rbuf [maxFuzzyRunes]rune
	forEachSegment(appendRunes(rbuf[:0], key), func(h uint64) { x.segs.add(h, id) })
}

// remove drops key, if filed.
func (x *segmentIndex) remove(key string) {
	id, ok := x.ids[key]
	if !ok {
		return
	}
	var rbuf [maxFuzzyRunes]rune
	forEachSegment(appendRunes(rbuf[:0], key), func(h uint64) { x.segs.remove(h, id) })
	delete(x.ids, key)
	x.keys[id] = ""
	x.free = append(x.free, id)
}

// fuzzScratch is a fuzzy lookup's working memory, pooled with the query's.
type fuzzScratch struct {
	// seen[id] == epoch marks a key found in this lookup; count[id] is how
	// many of its segments were found, last[id] the place of the last.
	seen  []uint32
	count []uint8
	last  []uint8
	epoch uint32
	cands []uint32
	runes []rune
	key   []rune
	rows  [3][]int
}

// within calls fn with every key at most k (1 or 2) edits from q, and its
// distance, in no particular order.
//
// A key is measured only when enough of its segments were found intact
// (segmentsNeeded); for k = 1 that misses nothing, for k = 2 it misses
// only a key whose two edits are both swaps across segment boundaries.
func (x *segmentIndex) within(sc *fuzzScratch, q string, k int, fn func(key string, dist int)) {
	sc.runes = appendRunes(sc.runes[:0], q)
	n := len(sc.runes)
	if k <= 0 || k > (numSegments-1)/2 || n == 0 || n > maxFuzzyRunes {
		return
	}
	sc.nextEpoch(len(x.keys))
	for length := max(1, n-k); length <= min(maxFuzzyRunes, n+k); length++ {
		m := min(numSegments, length)
		// An intact segment sits in q shifted by the insertions less the
		// deletions before it, and the ones after it make up the rest of
		// the length difference: |shift| + |diff − shift| ≤ k.
		diff := n - length
		for i := range m {
			start, end := i*length/m, (i+1)*length/m
			for shift := -k; shift <= k; shift++ {
				if abs(shift)+abs(diff-shift) > k {
					continue
				}
				p := start + shift
				if p < 0 || p+end-start > n {
					continue
				}
				x.segs.each(segmentHash(length, i, sc.runes[p:p+end-start]), func(id uint32) { sc.found(id, uint8(i)) })
			}
		}
	}
	for _, id := range sc.cands {
		key := x.keys[id]
		sc.key = appendRunes(sc.key[:0], key)
		if int(sc.count[id]) < segmentsNeeded(len(sc.key), k) {
			continue
		}
		if d := boundedDistance(sc.runes, sc.key, k, &sc.rows); d <= k {
			fn(key, d)
		}
	}
}

// segmentsNeeded is how many of a key's segments a query within k edits
// leaves intact: an edit touches one segment, a swap across a boundary
// two, so at least m − 2k of m; for k = 2 the bound used is m − 3, which
// lets a lookup skip most keys sharing one short segment by chance.
func segmentsNeeded(keyRunes, k int) int {
	m := min(numSegments, keyRunes)
	touched := 2 * k
	if k == 2 {
		touched = 3
	}
	return max(1, m-touched)
}

// found counts a segment of key id, at place, found intact in the query.
func (sc *fuzzScratch) found(id uint32, place uint8) {
	switch {
	case sc.seen[id] != sc.epoch:
		sc.seen[id], sc.count[id], sc.last[id] = sc.epoch, 1, place
		sc.cands = append(sc.cands, id)
	case sc.last[id] != place:
		sc.count[id]++
		sc.last[id] = place
	}
}

// nextEpoch starts a lookup over n keys: seen marks nothing of it yet.
func (sc *fuzzScratch) nextEpoch(n int) {
	if len(sc.seen) < n {
		sc.seen = append(sc.seen, make([]uint32, n-len(sc.seen))...)
		sc.count = append(sc.count, make([]uint8, n-len(sc.count))...)
		sc.last = append(sc.last, make([]uint8, n-len(sc.last))...)
	}
	sc.cands = sc.cands[:0]
	sc.epoch++
	if sc.epoch == 0 { // wrapped: forget every old mark
		clear(sc.seen)
		sc.epoch = 1
	}
}

// forEachSegment calls fn with the hash of each of rs's segments.
func forEachSegment(rs []rune, fn func(h uint64)) {
	n := len(rs)
	m := min(numSegments, n)
	for i := range m {
		fn(segmentHash(n, i, rs[i*n/m:(i+1)*n/m]))
	}
}

// segmentHash hashes a segment with the length of its key and its place
// (FNV-1a).
func segmentHash(keyLen, place int, seg []rune) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := (uint64(offset) ^ uint64(keyLen)) * prime
	h = (h ^ uint64(place)) * prime
	for _, r := range seg {
		h = (h ^ uint64(r)) * prime
	}
	return h
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
