package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// jsonErrorPos is the line and column (1-based, the column in bytes) in
// data where decoding it failed with err: the byte a syntax error could
// not take, a type error's offset (just past the value), an unknown
// field's name, else inputOffset (the decoder's position).
func jsonErrorPos(data []byte, err error, inputOffset int64) (line, col int) {
	off := inputOffset
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		off = se.Offset - 1 // the byte it could not take
	} else if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		off = te.Offset
	} else if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		off = int64(len(data))
	}
	off = max(0, min(off, int64(len(data))))
	// An unknown field: its name, the last one before where the decoder
	// stopped.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if i := bytes.LastIndex(data[:off], []byte(name)); i >= 0 {
			off = int64(i)
		}
	}
	line, col = 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// jsonErrorMessage is err's message without the package's "json: "
// prefix, an empty input said as such.
func jsonErrorMessage(err error) string {
	if errors.Is(err, io.EOF) {
		return "the file is empty"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "the JSON ends early"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
