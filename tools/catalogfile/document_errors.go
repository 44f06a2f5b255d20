package catalogfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/quiver-go/quiver/internal/boundedinput"
)

// startOf returns the offset of the first byte at or after off that is
// neither JSON white space nor one of the separators.
func (d *docReader) startOf(off int64, separators ...byte) int64 {
	return off + int64(skipSpace(d.tr.from(off), 0, separators...))
}

// errAt returns an *Error positioned at offset off of the input.
func (d *docReader) errAt(off int64, path, msg string, err error) *Error {
	line, col := d.tr.pos(off)
	return &Error{Source: d.source, Line: line, Column: col, Path: path, Msg: msg, Err: err}
}

// position is a line and a column of the input (1-based; the column
// counts bytes).
type position struct{ line, col int }

// posOf returns the position of off, which must not be forgotten before
// the position is used.
func (d *docReader) posOf(off int64) position {
	line, col := d.tr.pos(off)
	return position{line, col}
}

// errPos returns an *Error at a position taken earlier.
func (d *docReader) errPos(p position, path, msg string) *Error {
	return &Error{Source: d.source, Line: p.line, Column: p.col, Path: path, Msg: msg}
}

// expected returns an *Error for a token of the wrong kind at off.
func (d *docReader) expected(tok json.Token, off int64, path, want string) *Error {
	return d.errAt(off, path, fmt.Sprintf("expected %s, got %s", want, tokenKind(tok)), nil)
}

// mark forgets the bytes read so far; prefix is the JSON text that puts
// a fresh scanner in the state the document is in after them.
func (d *docReader) mark(prefix string) {
	d.tr.forget(d.dec.InputOffset())
	d.prefix = prefix
}

// fail turns an error of the decoder into an *Error.
func (d *docReader) fail(err error) error {
	var tle *boundedinput.TooLargeError
	switch {
	case errors.As(err, &tle):
		return tooLarge(d.source, tle)
	case errors.As(err, new(*json.SyntaxError)):
		return d.syntaxError(err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return d.errAt(d.tr.end(), "", "invalid JSON: unexpected end of input", err)
	}
	return &Error{Source: d.source, Msg: "cannot read: " + err.Error(), Err: err}
}

// syntaxError locates a syntax error. The decoder's own offset is not
// reliable once tokens and values are mixed, so the bytes kept since the
// mark are scanned again, after the prefix that puts a fresh scanner in
// the document's state at the mark: the error is where that scan stops.
func (d *docReader) syntaxError(err error) *Error {
	kept := d.tr.from(d.tr.base)
	data := make([]byte, 0, len(d.prefix)+len(kept))
	data = append(append(data, d.prefix...), kept...)
	var (
		raw json.RawMessage
		se  *json.SyntaxError
	)
	if again := json.NewDecoder(bytes.NewReader(data)).Decode(&raw); errors.As(again, &se) {
		return d.errAt(d.tr.base+se.Offset-1-int64(len(d.prefix)), "", "invalid JSON: "+se.Error(), err)
	}
	return d.errAt(d.tr.end(), "", "invalid JSON: "+err.Error(), err)
}

// tokenKind names the JSON type of a token.
func tokenKind(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '{' {
			return "object"
		}
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// tooLarge reports an input over its size limit.
func tooLarge(source string, e *boundedinput.TooLargeError) *Error {
	msg := fmt.Sprintf("the input is over the %s size limit; nothing past it was read", boundedinput.FormatSize(e.Limit))
	if e.Size > 0 {
		msg = fmt.Sprintf("the input is %s, over the %s size limit", boundedinput.FormatSize(e.Size), boundedinput.FormatSize(e.Limit))
	}
	return &Error{Source: source, Msg: msg, Err: e}
}
