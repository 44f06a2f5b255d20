package search

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// nameTiers maps tool names to document slots for the three name tiers.
// A slot may appear under several keys (its name and each alias).
type nameTiers struct {
	exact, caseFolded, sepFolded map[string][]uint32
}

func newNameTiers() nameTiers {
	return nameTiers{
		exact:      make(map[string][]uint32),
		caseFolded: make(map[string][]uint32),
		sepFolded:  make(map[string][]uint32),
	}
}

func (n nameTiers) add(s uint32, name string) {
	addSlot(n.exact, name, s)
	addSlot(n.caseFolded, string(appendCaseFold(nil, name)), s)
	if k := appendSepFold(nil, name); len(k) > 0 {
		addSlot(n.sepFolded, string(k), s)
	}
}

func (n nameTiers) remove(s uint32, name string) {
	removeSlot(n.exact, name, s)
	removeSlot(n.caseFolded, string(appendCaseFold(nil, name)), s)
	removeSlot(n.sepFolded, string(appendSepFold(nil, name)), s)
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
