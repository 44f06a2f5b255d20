package workspacedemo

import (
	"fmt"
	"strings"
	"unicode"
)

// tokKind is the kind of a token of the filter and SQL grammars.
type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokString
	tokNumber
	tokSymbol
)

// token is one lexical token; pos is its byte offset in the source.
type token struct {
	kind tokKind
	text string
	pos  int
}

// describe names the token for error messages.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "the end of the text"
	case tokString:
		return fmt.Sprintf("the string '%s'", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// lex splits src into tokens: identifiers (letters, digits, _ and dots,
// or "double quoted"), 'single-quoted strings' (a doubled quote inside
// stands for one), numbers
// (an optional minus, digits, an optional fraction) and the symbols
// = != <> < <= > >= ( ) , * ;.
func lex(src string) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := rune(src[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("the string starting at position %d has no closing quote", i+1)
				}
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(src[j])
				j++
			}
			out = append(out, token{tokString, b.String(), i})
			i = j + 1
		case c == '"':
			end := strings.IndexByte(src[i+1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("the quoted name starting at position %d has no closing quote", i+1)
			}
			out = append(out, token{tokIdent, src[i+1 : i+1+end], i})
			i += end + 2
		case isDigit(c) || (c == '-' && i+1 < len(src) && isDigit(rune(src[i+1]))):
			j := i + 1
			for j < len(src) && (isDigit(rune(src[j])) || src[j] == '.') {
				j++
			}
			if strings.Count(src[i:j], ".") > 1 {
				return nil, fmt.Errorf("%q at position %d is not a number", src[i:j], i+1)
			}
			out = append(out, token{tokNumber, src[i:j], i})
			i = j
		case unicode.IsLetter(c) || c == '_':
			j := i + 1
			for j < len(src) && (unicode.IsLetter(rune(src[j])) || isDigit(rune(src[j])) || src[j] == '_' || src[j] == '.') {
				j++
			}
			out = append(out, token{tokIdent, src[i:j], i})
			i = j
		default:
			sym := ""
			for _, s := range []string{"!=", "<>", "<=", ">=", "=", "<", ">", "(", ")", ",", "*", ";"} {
				if strings.HasPrefix(src[i:], s) {
					sym = s
					break
				}
			}
			if sym == "" {
				return nil, fmt.Errorf("unexpected character %q at position %d", c, i+1)
			}
			out = append(out, token{tokSymbol, sym, i})
			i += len(sym)
		}
	}
	return append(out, token{tokEOF, "", len(src)}), nil
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

// parser walks a token list.
type parser struct {
	toks []token
	i    int
}

// newParser lexes src.
func newParser(src string) (*parser, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	return &parser{toks: toks}, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// isKeyword reports whether t is the identifier kw, ignoring case.
func (t token) isKeyword(kw string) bool {
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

// keyword consumes the next token when it is the keyword kw.
func (p *parser) keyword(kw string) bool {
	if p.peek().isKeyword(kw) {
		p.i++
		return true
	}
	return false
}

// symbol consumes the next token when it is the symbol s.
func (p *parser) symbol(s string) bool {
	if t := p.peek(); t.kind == tokSymbol && t.text == s {
		p.i++
		return true
	}
	return false
}

// expectSymbol consumes the symbol s or fails naming what it found.
func (p *parser) expectSymbol(s string) error {
	if !p.symbol(s) {
		return fmt.Errorf("expected %q at position %d, found %s", s, p.peek().pos+1, p.peek().describe())
	}
	return nil
}

// ident consumes an identifier or fails saying what was expected.
func (p *parser) ident(what string) (string, error) {
	t := p.peek()
	if t.kind != tokIdent {
		return "", fmt.Errorf("expected %s at position %d, found %s", what, t.pos+1, t.describe())
	}
	p.i++
	return t.text, nil
}
