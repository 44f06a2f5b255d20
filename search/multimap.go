package search

import "slices"

// idMultimap maps hashes to ids. Most hashes of the fuzzy indexes belong
// to one key, so the first id of each lives in a plain map and only the
// others in a second map of slices: the common case allocates nothing of
// its own, which keeps building an index of thousands of tools cheap. The
// first id's top bit (hasMore) says whether the second map has any, so a
// lookup reads it only then.
type idMultimap struct {
	one  map[uint64]uint32
	more map[uint64][]uint32
}

// hasMore marks, in idMultimap.one, a hash with more than one id. Ids are
// slot and term numbers, far below it.
const hasMore = 1 << 31

func newIDMultimap() idMultimap {
	return idMultimap{one: make(map[uint64]uint32), more: make(map[uint64][]uint32)}
}

// add files id under h; filing it twice does nothing.
func (m *idMultimap) add(h uint64, id uint32) {
	first, ok := m.one[h]
	switch {
	case !ok:
		m.one[h] = id
	case first&^hasMore != id && !slices.Contains(m.more[h], id):
		m.more[h] = append(m.more[h], id)
		m.one[h] = first | hasMore
	}
}

// remove takes id from under h.
func (m *idMultimap) remove(h uint64, id uint32) {
	first, ok := m.one[h]
	if !ok {
		return
	}
	rest := m.more[h]
	if first&^hasMore == id {
		if len(rest) == 0 {
			delete(m.one, h)
			return
		}
		first = rest[len(rest)-1] | hasMore
		rest = rest[:len(rest)-1]
	} else if i := slices.Index(rest, id); i >= 0 {
		rest[i] = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
	}
	if len(rest) == 0 {
		delete(m.more, h)
		first &^= hasMore
	} else {
		m.more[h] = rest
	}
	m.one[h] = first
}

// each calls fn with every id filed under h.
func (m *idMultimap) each(h uint64, fn func(id uint32)) {
	first, ok := m.one[h]
	if !ok {
		return
	}
	fn(first &^ hasMore)
	if first&hasMore != 0 {
		for _, id := range m.more[h] {
			fn(id)
		}
	}
}
