package search

import "unicode/utf8"

// EditDistance is the optimal-string-alignment distance between a and b, in
// runes: the fewest insertions, deletions, substitutions and swaps of two
// adjacent runes that turn one into the other, no rune edited twice. It is
// the distance of the fuzzy name tier and of typo-tolerant terms.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	return boundedDistance(ra, rb, len(ra)+len(rb), nil)
}

// boundedDistance is the optimal-string-alignment distance of a and b when
// it is at most k, and k+1 otherwise. It computes only the cells of the
// dynamic-programming table within k of its diagonal (cells further out
// cost more than k) and stops as soon as a whole row costs more than k.
// rows is reusable scratch memory (may be nil).
func boundedDistance(a, b []rune, k int, rows *[3][]int) int {
	if d := len(a) - len(b); d > k || -d > k {
		return k + 1
	}
	if len(a) == 0 || len(b) == 0 {
		return max(len(a), len(b))
	}
	var local [3][]int
	if rows == nil {
		rows = &local
	}
	for i := range rows {
		if cap(rows[i]) < len(b)+2 {
			rows[i] = make([]int, len(b)+2)
		}
		rows[i] = rows[i][:len(b)+2]
	}
	inf := k + 1
	// before is row i-2, prev row i-1, cur row i; each row holds the band
	// [i-k, i+k] and inf just outside it.
	before, prev, cur := rows[0], rows[1], rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = min(j, inf)
	}
	prev[len(b)+1] = inf
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		if lo == 1 {
			cur[0] = min(i, inf)
		} else {
			cur[lo-1] = inf
		}
		best := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, before[j-2]+1)
			}
			cur[j] = min(d, inf)
			best = min(best, cur[j])
		}
		cur[hi+1] = inf
		if best > k {
			return inf
		}
		before, prev, cur = prev, cur, before
	}
	return prev[len(b)]
}

// appendRunes appends the runes of s to dst, without the allocation of
// []rune(s).
func appendRunes(dst []rune, s string) []rune {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		dst = append(dst, r)
		s = s[size:]
	}
	return dst
}
