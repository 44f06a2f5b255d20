package catalogfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Error reports a catalog that cannot be read: which file, where, and what
// was expected. Its message has the form
//
//	catalogfile: <source>:<line>:<column>: <path>: <message>
//
// where the position and the path are left out when they do not apply.
type Error struct {
	// Source is the file name given to Read or Load.
	Source string
	// Line and Column locate the offending JSON value (1-based; Column
	// counts bytes). Both are 0 when the error has no position.
	Line, Column int
	// Path locates the value within the document, e.g. "tools[3].name";
	// empty for the document itself.
	Path string
	// Msg says what was expected and what was found.
	Msg string
	// Err is the underlying error, if any (a JSON syntax error, an I/O
	// error).
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString("catalogfile: ")
	sb.WriteString(e.Source)
	if e.Line > 0 {
		sb.WriteString(":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column))
	}
	if e.Path != "" {
		sb.WriteString(": " + e.Path)
	}
	sb.WriteString(": " + e.Msg)
	return sb.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// position returns the 1-based line and byte column of offset in data.
// An offset past the end is placed just after the last byte.
func position(data []byte, offset int) (line, column int) {
	offset = max(0, min(offset, len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	column = offset - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, column
}

// syntaxError turns an error from encoding/json's decoder into an *Error
// positioned at the offending byte. base is the offset in data at which the
// decoder's input started.
func (r *reader) syntaxError(base int, err error) *Error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		return r.errAt(base+int(se.Offset)-1, "", "invalid JSON: "+se.Error(), err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return r.errAt(len(r.data), "", "invalid JSON: unexpected end of input", err)
	case errors.Is(err, io.EOF):
		return &Error{Source: r.source, Msg: `expected a JSON object {"tools": [...]} or an array of tools, found no JSON value`, Err: err}
	default:
		return r.errAt(base, "", "invalid JSON: "+err.Error(), err)
	}
}

// errAt returns an *Error positioned at offset.
func (r *reader) errAt(offset int, path, msg string, err error) *Error {
	line, col := position(r.data, offset)
	return &Error{Source: r.source, Line: line, Column: col, Path: path, Msg: msg, Err: err}
}

// expected returns an *Error for a value of the wrong kind.
func (r *reader) expected(v value, path, want string) *Error {
	return r.errAt(v.off, path, fmt.Sprintf("expected %s, got %s", want, kindOf(v.raw)), nil)
}
