package search

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Suggestion is a tool whose name is close to a query, offered when the
// query itself matched nothing.
type Suggestion struct {
	// Name is the document's name.
	Name string
	// Distance is the edits between the query and the nearest of the
	// document's names or name parts, all separator-folded.
	Distance int
}

// Suggest returns at most n documents whose names are near query, nearest
// first (then whole names before name parts, then by name): the tools a
// caller probably meant when a search finds nothing. It looks further than
// the fuzzy name tier — up to a third of the query's length in edits, at
// least two — and only at names, so a query describing a task rarely gets
// any. A query of fewer than three runes gets none.
func (ix *Index) Suggest(query string, n int) []Suggestion {
	folded := string(appendSepFold(nil, strings.TrimSpace(query)))
	runes := utf8.RuneCountInString(folded)
	if n <= 0 || runes < 3 {
		return nil
	}
	maxDist := max(2, runes/3)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc := ix.getScratch(false)
	defer ix.scratch.Put(sc)
	type near struct {
		slot uint32
		rank uint8
	}
	var found []near
	keep := func(s uint32, rank uint8) {
		if i := slices.IndexFunc(found, func(f near) bool { return f.slot == s }); i >= 0 {
			found[i].rank = min(found[i].rank, rank)
			return
		}
		found = append(found, near{s, rank})
	}
	// A linear pass over the names: Suggest answers searches that found
	// nothing, rare enough that an index of its own is not worth its
	// memory.
	sc.fuzz.runes = appendRunes(sc.fuzz.runes[:0], folded)
	q := sc.fuzz.runes
	f := ix.fuzzyIndex()
	for _, key := range f.segs.keys {
		if key == "" {
			continue
		}
		if n := len(key); n < len(q)-maxDist || n > 4*(len(q)+maxDist) {
			continue // too short or too long in bytes to be close in runes
		}
		sc.fuzz.key = appendRunes(sc.fuzz.key[:0], key)
		dist := boundedDistance(q, sc.fuzz.key, maxDist, &sc.fuzz.rows)
		if dist > maxDist {
			continue
		}
		ix.forEachNamed(f, key, func(s uint32, part bool) { keep(s, fuzzyRank(dist, part)) })
	}
	slices.SortFunc(found, func(a, b near) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return strings.Compare(ix.slots[a.slot].name, ix.slots[b.slot].name)
	})
	out := make([]Suggestion, 0, min(n, len(found)))
	for _, f := range found[:min(n, len(found))] {
		out = append(out, Suggestion{Name: ix.slots[f.slot].name, Distance: int(f.rank / 2)})
	}
	return out
}
