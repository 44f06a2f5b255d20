package search

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// nameTiers maps tool names to document slots for the name tiers. A slot
// may appear under several keys (its name and each alias).
type nameTiers struct {
	exact, caseFolded, sepFolded map[string][]uint32
	// fuzzy maps the separator-folded names, and parts maps the name
	// parts (see forEachNamePart), to slots; grams finds the keys of both
	// near a query.
	fuzzy, parts map[string][]uint32
	grams        gramIndex
}

func newNameTiers() nameTiers {
	return nameTiers{
		exact:      make(map[string][]uint32),
		caseFolded: make(map[string][]uint32),
		sepFolded:  make(map[string][]uint32),
		fuzzy:      make(map[string][]uint32),
		parts:      make(map[string][]uint32),
		grams:      newGramIndex(),
	}
}

func (n *nameTiers) add(s uint32, name string) {
	addSlot(n.exact, name, s)
	addSlot(n.caseFolded, string(appendCaseFold(nil, name)), s)
	if k := appendSepFold(nil, name); len(k) > 0 {
		addSlot(n.sepFolded, string(k), s)
	}
	forEachNamePart(name, func(key string, part bool) {
		n.grams.add(key)
		if part {
			addSlot(n.parts, key, s)
		} else {
			addSlot(n.fuzzy, key, s)
		}
	})
}

func (n *nameTiers) remove(s uint32, name string) {
	removeSlot(n.exact, name, s)
	removeSlot(n.caseFolded, string(appendCaseFold(nil, name)), s)
	removeSlot(n.sepFolded, string(appendSepFold(nil, name)), s)
	forEachNamePart(name, func(key string, part bool) {
		if part {
			removeSlot(n.parts, key, s)
		} else {
			removeSlot(n.fuzzy, key, s)
		}
		if len(n.fuzzy[key]) == 0 && len(n.parts[key]) == 0 {
			n.grams.remove(key)
		}
	})
}

// forEachNamePart calls fn with the separator-folded keys the fuzzy name
// tier matches for name: the whole name (part false), and each part after
// a namespace separator, . or / (part true) — github.create_issue also
// answers to createissue, as a model that drops the server's prefix
// writes it.
func forEachNamePart(name string, fn func(key string, part bool)) {
	if k := appendSepFold(nil, name); len(k) > 0 {
		fn(string(k), false)
	}
	for i := 0; i < len(name); i++ {
		if name[i] != '.' && name[i] != '/' {
			continue
		}
		if k := appendSepFold(nil, name[i+1:]); len(k) > 0 {
			fn(string(k), true)
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

// appendSepFold appends s lower-cased without separators (white space and
// _ - . /) to buf, so startExport, start_export and "start export" agree.
func appendSepFold(buf []byte, s string) []byte {
	for _, r := range s {
		if isNameSeparator(r) {
			continue
		}
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
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
