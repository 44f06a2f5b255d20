package search

import (
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// AnalyzerVersion names the analyzer that produced a [Document]'s terms. An
// [Index] refuses documents built by another version: stale generated code must
// be regenerated rather than silently mis-ranked.
const AnalyzerVersion = "quiver-en-1"

// Analyze turns text into index terms with the default analyzer:
//
//   - split on every non-letter, non-digit rune;
//   - split inside identifiers at case changes (startExport → start export,
//     HTTPServer → http server) and between letters and digits are kept
//     together (base64 stays one token);
//   - lower-case;
//   - drop English stop words and conversational fillers ("the", "please");
//   - stem with the Snowball English stemmer.
//
// The same function analyzes documents and queries.
func Analyze(text string) []string {
	var out []string
	forEachToken(text, func(tok []byte) {
		if t, ok := termOf(tok); ok {
			out = append(out, t)
		}
	})
	return out
}

// termOf maps one lower-case token to its index term, or reports that the
// token is a stop word.
func termOf(tok []byte) (string, bool) {
	if _, stop := stopWords[string(tok)]; stop {
		return "", false
	}
	return english.Stem(string(tok), false), true
}

// forEachToken calls fn with each lower-case token of text. The slice passed
// to fn is reused between calls.
func forEachToken(text string, fn func(tok []byte)) {
	var buf [64]byte
	tok := buf[:0]
	// prev classifies the previous rune: 0 none, 1 lower or other letter,
	// 2 upper, 3 digit.
	prev := 0
	flush := func() {
		if len(tok) > 0 {
			fn(tok)
			tok = tok[:0]
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case unicode.IsUpper(r):
			// A new word starts at an upper-case rune after a lower-case
			// one (startExport), or at the last upper-case rune of a run
			// that a lower-case rune follows (HTTPServer → HTTP Server).
			if prev == 1 {
				flush()
			} else if prev == 2 {
				next, _ := utf8.DecodeRuneInString(text[i:])
				if unicode.IsLower(next) {
					flush()
				}
			}
			tok = utf8.AppendRune(tok, unicode.ToLower(r))
			prev = 2
		case unicode.IsLetter(r):
			tok = utf8.AppendRune(tok, unicode.ToLower(r))
			prev = 1
		case unicode.IsDigit(r):
			tok = utf8.AppendRune(tok, r)
			prev = 3
		default:
			flush()
			prev = 0
		}
	}
	flush()
}
