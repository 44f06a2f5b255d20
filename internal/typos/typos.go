package typos

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Seed is the fixed seed of the committed typo sets.
const Seed = 20261205

// New returns the random source the committed typo sets are drawn from:
// PCG seeded with [Seed], whose sequence math/rand/v2 specifies, so it does
// not change between Go releases.
func New() *rand.Rand { return rand.New(rand.NewPCG(Seed, Seed)) }

// Kind is one edit operation.
type Kind int

// The edits of Damerau–Levenshtein distance one.
const (
	Insert Kind = iota
	Delete
	Substitute
	Transpose
)

var kindNames = [...]string{"insert", "delete", "substitute", "transpose"}

// String names the edit.
func (k Kind) String() string { return kindNames[k] }

// alphabet is what insertions and substitutions draw from: the letters
// people and models mistype with.
const alphabet = "abcdefghijklmnopqrstuvwxyz"

// OneEdit returns s with one random edit — an insertion or substitution of
// a lower-case letter, a deletion, or a swap of two adjacent different
// runes — and the edit's kind. The result always differs from s. s needs
// at least two runes; shorter strings are returned unchanged with ok false.
func OneEdit(r *rand.Rand, s string) (typo string, kind Kind, ok bool) {
	rs := []rune(s)
	if len(rs) < 2 {
		return s, 0, false
	}
	for {
		kind = Kind(r.IntN(4))
		var out []rune
		switch kind {
		case Insert:
			i := r.IntN(len(rs) + 1)
			out = append(append(append(out, rs[:i]...), letter(r)), rs[i:]...)
		case Delete:
			i := r.IntN(len(rs))
			out = append(append(out, rs[:i]...), rs[i+1:]...)
		case Substitute:
			i := r.IntN(len(rs))
			out = append(out, rs...)
			out[i] = letter(r)
		case Transpose:
			i := r.IntN(len(rs) - 1)
			if rs[i] == rs[i+1] {
				continue
			}
			out = append(out, rs...)
			out[i], out[i+1] = out[i+1], out[i]
		}
		if typo = string(out); typo != s {
			return typo, kind, true
		}
	}
}

func letter(r *rand.Rand) rune { return rune(alphabet[r.IntN(len(alphabet))]) }

// MinWordLen is the shortest word [Query] misspells: shorter words are
// rarely mistyped in ways a reader still recognizes.
const MinWordLen = 4

// WordRate is the chance that [Query] misspells each eligible word beyond
// the first.
const WordRate = 0.25

// Query returns q with typos: one eligible word (letters only, at least
// [MinWordLen] of them) chosen at random gets one edit, and each other
// eligible word one with probability [WordRate]; the rest of q — spacing,
// punctuation, short words — is kept. A query without an eligible word is
// returned unchanged, with n 0.
func Query(r *rand.Rand, q string) (typoed string, n int) {
	words := strings.SplitAfter(q, " ")
	var eligible []int
	for i, w := range words {
		if isWord(strings.TrimSpace(w)) {
			eligible = append(eligible, i)
		}
	}
	if len(eligible) == 0 {
		return q, 0
	}
	first := eligible[r.IntN(len(eligible))]
	for _, i := range eligible {
		if i != first && r.Float64() >= WordRate {
			continue
		}
		w := words[i]
		core := strings.TrimRight(w, " ")
		typo, _, _ := OneEdit(r, core)
		words[i] = typo + w[len(core):]
		n++
	}
	return strings.Join(words, ""), n
}

// isWord reports whether w is a run of at least MinWordLen letters.
func isWord(w string) bool {
	if utf8.RuneCountInString(w) < MinWordLen {
		return false
	}
	for _, c := range w {
		if !unicode.IsLetter(c) {
			return false
		}
	}
	return true
}
