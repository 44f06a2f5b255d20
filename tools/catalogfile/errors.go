package catalogfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/quiver-go/quiver/internal/boundedinput"
)

// Error reports a catalog that cannot be read, or a warning about one:
// which file, where, and what was expected. Its message has the form
//
//	catalogfile: <source>:<line>:<column>: <path>: <message>
//
// where the position and the path are left out when they do not apply.
type Error struct {
	// Source is the file name given to [Read] or [Load].
	Source string
	// Line and [Error.Column] locate the offending JSON value (1-based; Column
	// counts bytes). Both are 0 when the error has no position.
	Line, Column int
	// Path locates the value within the document, e.g. "tools[3].name";
	// empty for the document itself.
	Path string
	// Msg says what was expected and what was found.
	Msg string
	// Err is the underlying error, if any: a JSON syntax error, an I/O
	// error, [ErrInvalidName] for a name problem, an error matching
	// [ErrTooLarge] for an input over the size limit, the
	// *contract.DeclarationError of a tool the runtime refuses.
	Err error
}

// ErrTooLarge is matched ([errors.Is]) by the error of an input over
// [ReadOptions.MaxSize].
var ErrTooLarge = boundedinput.ErrTooLarge

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

// syntaxError turns an error from encoding/json's decoder into an *Error
// positioned at the offending byte. base is the offset in r.data at which
// the decoder's input started. A reader's data was decoded whole before,
// so this reports only what cannot happen in well-formed JSON.
func (r *reader) syntaxError(base int, err error) *Error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return r.errAt(base+int(se.Offset)-1, "", "invalid JSON: "+se.Error(), err)
	}
	return r.errAt(base, "", "invalid JSON: "+err.Error(), err)
}

// errAt returns an *Error positioned at offset of r.data.
func (r *reader) errAt(offset int, path, msg string, err error) *Error {
	line, col := advance(r.line, r.col, r.data[:max(0, min(offset, len(r.data)))])
	return &Error{Source: r.source, Line: line, Column: col, Path: path, Msg: msg, Err: err}
}

// expected returns an *Error for a value of the wrong kind.
func (r *reader) expected(v value, path, want string) *Error {
	return r.errAt(v.off, path, fmt.Sprintf("expected %s, got %s", want, kindOf(v.raw)), nil)
}
