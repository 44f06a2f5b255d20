package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// MaxWireNameLen is the longest wire name providers accept.
const MaxWireNameLen = 64

// minHashLen and maxHashLen bound the hex digits of the ident hash appended to
// a wire name that collides or is too long.
const (
	minHashLen = 8
	maxHashLen = 62
)

// ErrDuplicateIdent is returned by [NewWireNames] when an ident appears twice.
var ErrDuplicateIdent = errors.New("tools: duplicate ident")

// ErrWireNameCollision is returned by [NewWireNames] when two idents cannot be
// given distinct wire names (it needs a SHA-256 collision to happen).
var ErrWireNameCollision = errors.New("tools: wire name collision")

// ValidWireName reports whether s matches ^[a-zA-Z0-9_-]{1,64}$, the function
// name syntax every provider accepts.
func ValidWireName(s string) bool {
	if len(s) == 0 || len(s) > MaxWireNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !wireByte(s[i]) {
			return false
		}
	}
	return true
}

func wireByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// sanitizeWire replaces every rune outside [a-zA-Z0-9_-] with '_'.
func sanitizeWire(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x80 && wireByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// WireNames is a reversible, collision-checked map between idents and the
// wire names models read. Build it with [NewWireNames]; it is immutable and
// safe for concurrent use.
//
// A tool's wire name is its bare tool name, sanitized (runes outside
// [a-zA-Z0-9_-] become '_'), when no other ident in the set sanitizes to the
// same bare name; otherwise "<toolset>_<tool>" sanitized (dots become '_').
// When a candidate is still claimed by several idents, or is longer than 64
// bytes, every claimant gets a hashed name instead: the qualified candidate
// truncated, then '_' and the first hex digits of the SHA-256 of its ident
// (more digits only if needed to stay unique). The result depends only on the
// set of idents, never on their order.
type WireNames struct {
	toWire  map[Ident]string
	toIdent map[string]Ident
	idents  []Ident
}

// wireEntry is one ident's candidate wire name during NewWireNames.
type wireEntry struct {
	id      Ident
	name    string
	hashLen int // 0 when name is not hashed
}

// NewWireNames assigns wire names to idents (see [WireNames]). Each ident must
// be valid and appear once.
func NewWireNames(idents []Ident) (*WireNames, error) {
	sorted := slices.Clone(idents)
	slices.Sort(sorted)
	var errs []error
	for i, id := range sorted {
		if i > 0 && sorted[i-1] == id {
			if i < 2 || sorted[i-2] != id {
				errs = append(errs, fmt.Errorf("%w %q: each tool must appear once", ErrDuplicateIdent, id))
			}
			continue
		}
		if err := id.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	entries := make([]wireEntry, len(sorted))
	bare := make(map[string]int, len(sorted))
	for _, id := range sorted {
		bare[sanitizeWire(id.Tool())]++
	}
	for i, id := range sorted {
		name := sanitizeWire(id.Tool())
		if bare[name] > 1 {
			name = qualifiedWire(id)
		}
		entries[i] = wireEntry{id: id, name: name}
		if len(name) > MaxWireNameLen {
			entries[i].hashLen = minHashLen
			entries[i].name = hashedWire(id, minHashLen)
		}
	}
	if err := resolveWireCollisions(entries); err != nil {
		return nil, err
	}
	w := &WireNames{
		toWire:  make(map[Ident]string, len(entries)),
		toIdent: make(map[string]Ident, len(entries)),
		idents:  sorted,
	}
	for _, e := range entries {
		w.toWire[e.id] = e.name
		w.toIdent[e.name] = e.id
	}
	return w, nil
}

// resolveWireCollisions rewrites entries until no two share a name: an
// unhashed claimant of a shared name gets a hashed name, and a hashed one
// gets more hash digits.
func resolveWireCollisions(entries []wireEntry) error {
	for {
		claims := make(map[string][]int, len(entries))
		for i, e := range entries {
			claims[e.name] = append(claims[e.name], i)
		}
		changed := false
		// In name order, so that the error for an unresolvable collision
		// names the same ident every time.
		for _, name := range slices.Sorted(maps.Keys(claims)) {
			holders := claims[name]
			if len(holders) < 2 {
				continue
			}
			for _, i := range holders {
				e := &entries[i]
				switch {
				case e.hashLen == 0:
					e.hashLen = minHashLen
				case e.hashLen < maxHashLen:
					e.hashLen = min(e.hashLen*2, maxHashLen)
				default:
					return fmt.Errorf("%w: %q and another ident share %q", ErrWireNameCollision, e.id, e.name)
				}
				e.name = hashedWire(e.id, e.hashLen)
				changed = true
			}
		}
		if !changed {
			return nil
		}
	}
}

// qualifiedWire returns "<toolset>_<tool>" sanitized.
func qualifiedWire(id Ident) string {
	return sanitizeWire(id.Toolset() + "_" + id.Tool())
}

// hashedWire returns the qualified name truncated so that '_' and hashLen hex
// digits of the ident's SHA-256 fit in MaxWireNameLen.
func hashedWire(id Ident, hashLen int) string {
	sum := sha256.Sum256([]byte(id))
	h := hex.EncodeToString(sum[:])[:hashLen]
	prefix := qualifiedWire(id)
	if keep := MaxWireNameLen - 1 - hashLen; len(prefix) > keep {
		prefix = prefix[:keep]
	}
	return prefix + "_" + h
}

// Wire returns the wire name of id.
func (w *WireNames) Wire(id Ident) (string, bool) {
	if w == nil {
		return "", false
	}
	s, ok := w.toWire[id]
	return s, ok
}

// Ident returns the ident whose wire name is wire.
func (w *WireNames) Ident(wire string) (Ident, bool) {
	if w == nil {
		return "", false
	}
	id, ok := w.toIdent[wire]
	return id, ok
}

// Len returns the number of idents mapped.
func (w *WireNames) Len() int {
	if w == nil {
		return 0
	}
	return len(w.idents)
}

// Idents returns the mapped idents, sorted, in a fresh slice.
func (w *WireNames) Idents() []Ident {
	if w == nil {
		return nil
	}
	return slices.Clone(w.idents)
}
