package search

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokenizer splits text into folded tokens (see [Analyze]). It is reused
// for one text: tok holds the word being read, cjk the Han/Kana run.
type tokenizer struct {
	fn func(tok []byte)
	// tok is the current word, lower-cased; folded says whether it holds
	// a rune outside ASCII and must be folded when it ends.
	tok    []byte
	folded bool
	cjk    []rune
	fold   []byte
	// prev classifies the previous rune: 0 none, 1 lower or other letter,
	// 2 upper, 3 digit.
	prev int
}

// forEachToken calls fn with each folded token of text. The slice passed
// to fn is reused between calls.
func forEachToken(text string, fn func(tok []byte)) {
	var tokBuf [64]byte
	tz := tokenizer{fn: fn, tok: tokBuf[:0]}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if r < utf8.RuneSelf {
			tz.ascii(byte(r), text[i:])
			continue
		}
		tz.rune(r, text[i:])
	}
	tz.flushWord()
	tz.flushCJK()
}

// ascii reads one ASCII byte; rest is the text after it.
func (tz *tokenizer) ascii(c byte, rest string) {
	switch {
	case 'a' <= c && c <= 'z':
		tz.flushCJK()
		tz.tok = append(tz.tok, c)
		tz.prev = 1
	case 'A' <= c && c <= 'Z':
		tz.flushCJK()
		tz.upper(rest)
		tz.tok = append(tz.tok, c+('a'-'A'))
		tz.prev = 2
	case '0' <= c && c <= '9':
		tz.flushCJK()
		tz.tok = append(tz.tok, c)
		tz.prev = 3
	default:
		tz.flushWord()
		tz.flushCJK()
		tz.prev = 0
	}
}

// rune reads one rune outside ASCII; rest is the text after it.
func (tz *tokenizer) rune(r rune, rest string) {
	switch {
	case isCJK(r):
		tz.flushWord()
		tz.cjk = append(tz.cjk, r)
		tz.prev = 0
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r):
		// A combining mark belongs to the word it follows (a decomposed
		// é); folding drops the nonspacing ones.
		if len(tz.tok) > 0 {
			tz.tok = utf8.AppendRune(tz.tok, r)
			tz.folded = true
		}
	case unicode.IsUpper(r):
		tz.flushCJK()
		tz.upper(rest)
		tz.tok = utf8.AppendRune(tz.tok, unicode.ToLower(r))
		tz.folded = true
		tz.prev = 2
	case unicode.IsLetter(r):
		tz.flushCJK()
		tz.tok = utf8.AppendRune(tz.tok, unicode.ToLower(r))
		tz.folded = true
		tz.prev = 1
	case unicode.IsDigit(r):
		tz.flushCJK()
		tz.tok = utf8.AppendRune(tz.tok, r)
		tz.folded = true
		tz.prev = 3
	default:
		tz.flushWord()
		tz.flushCJK()
		tz.prev = 0
	}
}

// upper ends the current word where an upper-case rune starts a new one:
// after a lower-case rune (startExport), or at the last upper-case rune of
// a run that a lower-case rune follows (HTTPServer → HTTP Server).
func (tz *tokenizer) upper(rest string) {
	if tz.prev == 1 {
		tz.flushWord()
	} else if tz.prev == 2 {
		next, _ := utf8.DecodeRuneInString(rest)
		if unicode.IsLower(next) {
			tz.flushWord()
		}
	}
}

// flushWord hands the current word, folded, to fn.
func (tz *tokenizer) flushWord() {
	if len(tz.tok) == 0 {
		return
	}
	tok := tz.tok
	if tz.folded {
		tz.fold = appendFolded(tz.fold[:0], tok)
		tok = tz.fold
	}
	if len(tok) > 0 {
		tz.fn(tok)
	}
	tz.tok = tz.tok[:0]
	tz.folded = false
}

// flushCJK hands the current Han/Kana run to fn as overlapping bigrams, or
// as itself when it is one character.
func (tz *tokenizer) flushCJK() {
	switch n := len(tz.cjk); n {
	case 0:
		return
	case 1:
		tz.fold = utf8.AppendRune(tz.fold[:0], tz.cjk[0])
		tz.fn(tz.fold)
	default:
		for i := 0; i+1 < n; i++ {
			tz.fold = utf8.AppendRune(utf8.AppendRune(tz.fold[:0], tz.cjk[i]), tz.cjk[i+1])
			tz.fn(tz.fold)
		}
	}
	tz.cjk = tz.cjk[:0]
}

// appendFolded appends tok compatibility-decomposed, without nonspacing
// marks and lower-cased (a decomposition may yield upper case: ℌ → H).
func appendFolded(dst, tok []byte) []byte {
	var it norm.Iter
	it.Init(norm.NFKD, tok)
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
				continue
			}
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
	}
	return dst
}

// isCJK reports whether r is written without spaces between words and is
// indexed as bigrams: Han ideographs, Hiragana and Katakana.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
