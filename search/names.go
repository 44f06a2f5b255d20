package search

import (
	"slices"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// nameTiers maps tool names to document slots for the name tiers. A slot
// may appear under several keys (its name and each alias).
type nameTiers struct {
	exact, caseFolded, sepFolded map[string][]uint32
	// fuzzy serves the fuzzy name tier. Most searches never reach that
	// tier (a name matched, or the query is a sentence), so it is built on
	// the first search that does, then kept up to date by every write.
	fuzzy fuzzyNames
}

// fuzzyNames is the fuzzy name tier's index: parts maps the
// separator-folded name parts (see forEachNamePart) to slots, and segs
// finds the keys of sepFolded and parts near a query.
type fuzzyNames struct {
	// built is set, under mu, once parts and segs hold every name. A
	// reader builds them holding the Index's read lock and mu: writers
	// are excluded by the read lock, other readers by mu.
	built atomic.Bool
	mu    sync.Mutex
	parts map[string][]uint32
	segs  segmentIndex
}

func newNameTiers() nameTiers {
	return nameTiers{
		exact:      make(map[string][]uint32),
		caseFolded: make(map[string][]uint32),
		sepFolded:  make(map[string][]uint32),
	}
}

func (n *nameTiers) add(s uint32, name string) {
	addSlot(n.exact, name, s)
	addSlot(n.caseFolded, string(appendCaseFold(nil, name)), s)
	built := n.fuzzy.built.Load()
	forEachNamePart(name, func(key []byte, part bool) {
		switch {
		case !part:
			k := string(key)
			addSlot(n.sepFolded, k, s)
			if built {
				n.fuzzy.segs.add(k)
			}
		case built:
			k := string(key)
			addSlot(n.fuzzy.parts, k, s)
			n.fuzzy.segs.add(k)
		}
	})
}

func (n *nameTiers) remove(s uint32, name string) {
	removeSlot(n.exact, name, s)
	removeSlot(n.caseFolded, string(appendCaseFold(nil, name)), s)
	built := n.fuzzy.built.Load()
	forEachNamePart(name, func(key []byte, part bool) {
		if part && !built {
			return
		}
		m := n.sepFolded
		if part {
			m = n.fuzzy.parts
		}
		removeSlot(m, string(key), s)
		if built && len(n.sepFolded[string(key)]) == 0 && len(n.fuzzy.parts[string(key)]) == 0 {
			n.fuzzy.segs.remove(string(key))
		}
	})
}

// fuzzyIndex returns the fuzzy name tier's index, building it from the
// live slots the first time. ix.mu is held for reading (or writing).
func (ix *Index) fuzzyIndex() *fuzzyNames {
	f := &ix.names.fuzzy
	if f.built.Load() {
		return f
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.built.Load() {
		return f
	}
	f.parts = make(map[string][]uint32)
	f.segs = newSegmentIndex()
	for s := range ix.slots {
		sl := &ix.slots[s]
		if !sl.live {
			continue
		}
		for i := -1; i < len(sl.aliases); i++ {
			name := sl.name
			if i >= 0 {
				name = sl.aliases[i]
			}
			forEachNamePart(name, func(key []byte, part bool) {
				k := string(key)
				if part {
					addSlot(f.parts, k, uint32(s))
				}
				f.segs.add(k)
			})
		}
	}
	f.built.Store(true)
	return f
}

// forEachNamePart calls fn with the separator-folded keys of name: the
// whole name (part false), which the separator-folded tier matches, and
// each part after a namespace separator, . or / (part true), which only
// the fuzzy name tier matches — github.create_issue also answers, fuzzily,
// to createissue, as a model that drops the server's prefix writes it.
// Empty keys are skipped; key is reused between calls.
func forEachNamePart(name string, fn func(key []byte, part bool)) {
	var buf [128]byte
	if k := appendSepFold(buf[:0], name); len(k) > 0 {
		fn(k, false)
	}
	for i := 0; i < len(name); i++ {
		if name[i] != '.' && name[i] != '/' {
			continue
		}
		if k := appendSepFold(buf[:0], name[i+1:]); len(k) > 0 {
			fn(k, true)
		}
	}
}

func addSlot(m map[string][]uint32, key string, s uint32) {
	if !slices.Contains(m[key], s) {
		m[key] = append(m[key], s)
	}
}

func removeSlot(m map[string][]uint32, key string, s uint32) {
	ss := m[key]
	if i := slices.Index(ss, s); i >= 0 {
		ss = slices.Delete(ss, i, i+1)
	}
	if len(ss) == 0 {
		delete(m, key)
	} else {
		m[key] = ss
	}
}

// appendCaseFold appends s lower-cased to buf.
func appendCaseFold(buf []byte, s string) []byte {
	for _, r := range s {
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
	}
	return buf
}

// appendSepFold appends s lower-cased, without accents (see [Analyze]) and
// without separators (white space and _ - . /) to buf, so startExport,
// start_export and "start export" agree, and so do météo and meteo.
func appendSepFold(buf []byte, s string) []byte {
	for _, r := range s {
		switch {
		case isNameSeparator(r):
		case r < utf8.RuneSelf:
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		default:
			// Accents and compatibility forms fold as the analyzer folds
			// them: météo_du_jour ~ meteo_du_jour.
			var enc [utf8.UTFMax]byte
			buf = appendFolded(buf, utf8.AppendRune(enc[:0], r))
		}
	}
	return buf
}

func isNameSeparator(r rune) bool {
	switch r {
	case '_', '-', '.', '/':
		return true
	}
	return unicode.IsSpace(r)
}
