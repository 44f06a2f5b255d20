package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestIDMultimapKeepsEveryIDOnce(t *testing.T) {
	m := newIDMultimap()
	ids := func(h uint64) []uint32 {
		var out []uint32
		m.each(h, func(id uint32) { out = append(out, id) })
		slices.Sort(out)
		return out
	}
	m.add(1, 7)
	m.add(1, 7)
	m.add(1, 8)
	m.add(1, 9)
	m.add(2, 8)
	if got := ids(1); !slices.Equal(got, []uint32{7, 8, 9}) {
		t.Fatalf("ids(1) = %v", got)
	}
	m.remove(1, 7) // the first id: one of the others takes its place
	if got := ids(1); !slices.Equal(got, []uint32{8, 9}) {
		t.Fatalf("after removing 7: %v", got)
	}
	m.remove(1, 9)
	m.remove(1, 5) // absent: nothing changes
	if got := ids(1); !slices.Equal(got, []uint32{8}) || m.one[1]&hasMore != 0 || len(m.more) != 0 {
		t.Fatalf("after removing 9: %v, one %x, more %v", got, m.one[1], m.more)
	}
	m.remove(1, 8)
	if got := ids(1); len(got) != 0 || len(m.one) != 1 {
		t.Fatalf("after removing 8: %v, one %v", got, m.one)
	}
	if got := ids(2); !slices.Equal(got, []uint32{8}) {
		t.Fatalf("ids(2) = %v", got)
	}
}

// TestSegmentIndexFindsEveryKeyWithinItsBound: a key is found from any
// query one edit away (insertion, deletion, substitution or swap), and
// from any query two insertions, deletions or substitutions away; random
// keys over a three-letter alphabet make near neighbours common.
func TestSegmentIndexFindsEveryKeyWithinItsBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	x := newSegmentIndex()
	var keys []string
	for range 300 {
		rs := make([]rune, 4+r.IntN(17))
		for i := range rs {
			rs[i] = rune('a' + r.IntN(3))
		}
		keys = append(keys, string(rs))
		x.add(string(rs))
	}
	var sc fuzzScratch
	finds := func(q string, k int, key string) bool {
		found := false
		x.within(&sc, q, k, func(got string, d int) {
			if d > k || d != EditDistance(q, got) {
				t.Fatalf("within(%q, %d) reported %q at %d, its distance is %d", q, k, got, d, EditDistance(q, got))
			}
			found = found || got == key
		})
		return found
	}
	for _, key := range keys {
		for range 20 {
			q := editRunes(r, []rune(key), 4)
			if EditDistance(key, string(q)) == 1 && !finds(string(q), 1, key) {
				t.Fatalf("within(%q, 1) missed %q, one edit away", string(q), key)
			}
			q2 := editRunes(r, editRunes(r, []rune(key), 3), 3)
			if d := EditDistance(key, string(q2)); d <= 2 && !finds(string(q2), 2, key) {
				t.Fatalf("within(%q, 2) missed %q, %d edits away", string(q2), key, d)
			}
		}
	}
}

// editRunes applies one random edit to rs: an insertion, a deletion, a
// substitution or, when kinds is 4, a swap of two neighbours.
func editRunes(r *rand.Rand, rs []rune, kinds int) []rune {
	rs = slices.Clone(rs)
	i := r.IntN(len(rs))
	switch r.IntN(kinds) {
	case 0:
		return slices.Insert(rs, i, rune('a'+r.IntN(3)))
	case 1:
		if len(rs) > 1 {
			return slices.Delete(rs, i, i+1)
		}
	case 2:
		rs[i] = rune('a' + r.IntN(3))
	default:
		if i+1 < len(rs) {
			rs[i], rs[i+1] = rs[i+1], rs[i]
		}
	}
	return rs
}
