package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Error is a decoding error with its position in the text.
type Error struct {
	// Line and Column are 1-based; Column counts bytes.
	Line, Column int
	// Err is the decoder's error.
	Err error
}

// Error implements error: "line L, column C: <Problem>".
func (e *Error) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Problem())
}

// Problem says what is wrong, without the position: the decoder's
// message without its "json: " prefix, an empty or cut-short input said
// as such.
func (e *Error) Problem() string {
	switch {
	case errors.Is(e.Err, io.EOF):
		return "the file is empty"
	case errors.Is(e.Err, io.ErrUnexpectedEOF):
		return "the JSON ends early"
	}
	return strings.TrimPrefix(e.Err.Error(), "json: ")
}

// Unwrap returns the decoder's error.
func (e *Error) Unwrap() error { return e.Err }

// Locate returns err, an error of dec decoding data, with its position:
// a syntax error's or a type error's own offset, else where dec stopped
// (an unknown field under DisallowUnknownFields, the end of the input).
// Other errors are returned as they are.
func Locate(data []byte, dec *json.Decoder, err error) error {
	if err == nil {
		return nil
	}
	var (
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
		off int64
	)
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1
	case errors.As(err, &te):
		off = te.Offset - 1
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		off = int64(len(data))
	default:
		off = dec.InputOffset() - 1
		if k, ok := unknownField(data, err); ok {
			off = k
		}
	}
	line, col := Position(data, off)
	return &Error{Line: line, Column: col, Err: err}
}

// unknownField finds the key an unknown-field error names (encoding/json
// gives no offset for it: the decoder has read the whole value by then):
// the first place the quoted name is used as a key.
func unknownField(data []byte, err error) (int64, bool) {
	name, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return 0, false
	}
	quoted := []byte(name)
	for from := 0; ; {
		i := bytes.Index(data[from:], quoted)
		if i < 0 {
			return 0, false
		}
		at := from + i
		rest := bytes.TrimLeft(data[at+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return int64(at), true
		}
		from = at + 1
	}
}

// Position returns the 1-based line and column of byte offset off of data
// (clamped to data).
func Position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
