// Package pieces splits text the way a model streams it: after each word,
// or in pieces of a few bytes that never cut a character. The scripted
// model's streaming mode and the fake provider's streams share it, so a
// test's stream and an offline example's are cut the same way.
package pieces

import (
	"strings"
	"unicode/utf8"
)

// Words splits text after each space: joined, the pieces are text.
func Words(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			return append(out, text)
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// Bytes splits s into pieces of about n bytes (n > 0; a character longer
// than n is a piece of its own), never inside a UTF-8 sequence: joined,
// the pieces are s.
func Bytes(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			// n is shorter than the first character: take it whole.
			_, cut = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
