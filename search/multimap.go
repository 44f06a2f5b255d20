package search

import "slices"

// idMultimap maps hashes to ids. Most hashes of the fuzzy indexes belong
// to one key, so the first id of each lives in a plain map and only the
// others in a second map of slices: the common case allocates nothing of
// its own, which keeps building an index of thousands of tools cheap.
type idMultimap struct {
	one  map[uint64]uint32
	more map[uint64][]uint32
}

func newIDMultimap() idMultimap {
	return idMultimap{one: make(map[uint64]uint32), more: make(map[uint64][]uint32)}
}

// add files id under h; filing it twice does nothing.
func (m *idMultimap) add(h uint64, id uint32) {
	first, ok := m.one[h]
	switch {
	case !ok:
		m.one[h] = id
	case first != id && !slices.Contains(m.more[h], id):
		m.more[h] = append(m.more[h], id)
	}
}

// remove takes id from under h.
func (m *idMultimap) remove(h uint64, id uint32) {
	first, ok := m.one[h]
	if !ok {
		return
	}
	rest := m.more[h]
	if first == id {
		if len(rest) == 0 {
			delete(m.one, h)
			return
		}
		m.one[h] = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
	} else if i := slices.Index(rest, id); i >= 0 {
		rest[i] = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
	}
	if len(rest) == 0 {
		delete(m.more, h)
	} else {
		m.more[h] = rest
	}
}

// each calls fn with every id filed under h.
func (m *idMultimap) each(h uint64, fn func(id uint32)) {
	first, ok := m.one[h]
	if !ok {
		return
	}
	fn(first)
	for _, id := range m.more[h] {
		fn(id)
	}
}
