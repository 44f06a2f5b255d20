package catalogfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// docReader walks a catalog document as a stream: the envelope (the
// document object, a JSON-RPC response's "result") token by token, each
// element of the tools array as one value, checked and kept before the
// next is read.
type docReader struct {
	source string
	opts   ReadOptions
	tr     *tracker
	dec    *json.Decoder
	cat    *Catalog
	names  nameIndex
	// prefix is JSON text that puts a fresh scanner in the state the
	// document is in at the tracker's mark, e.g. `{"":[null` after a
	// tool, so that the bytes kept since the mark can be scanned again to
	// locate a syntax error.
	prefix string
	// pending are the tools waiting for the runtime's checks (see flush).
	pending []pendingTool
	// problems are the tools' problems found so far (see problem).
	problems []*Error
}

// document reads the single JSON value the input must hold.
func (d *docReader) document() error {
	tok, err := d.dec.Token()
	if errors.Is(err, io.EOF) {
		return &Error{Source: d.source, Msg: `expected a JSON object {"tools": [...]} or an array of tools, found no JSON value`, Err: err}
	}
	if err != nil {
		return d.fail(err)
	}
	off := d.startOf(0)
	switch tok {
	case json.Delim('['):
		err = d.toolArray("tools", "")
	case json.Delim('{'):
		err = d.envelope(off)
	default:
		return d.expected(tok, off, "", `a JSON object {"tools": [...]} or an array of tools`)
	}
	if err != nil {
		return err
	}
	end := d.dec.InputOffset()
	switch _, err := d.dec.Token(); {
	case errors.Is(err, io.EOF):
		return nil
	case err == nil, errors.As(err, new(*json.SyntaxError)):
		return d.errAt(d.startOf(end), "", "invalid JSON: unexpected data after the catalog's closing bracket", nil)
	default:
		return d.fail(err) // over the size limit, or unreadable
	}
}

// envelope reads the document object, whose "tools" key holds the tools
// array, or whose "result" holds an object with that key (a JSON-RPC
// response to tools/list). objOff is the offset of its '{'.
func (d *docReader) envelope(objOff int64) error {
	obj := d.posOf(objOff)
	found := ""
	for d.dec.More() {
		key, keyOff, err := d.key()
		if err != nil {
			return err
		}
		switch key {
		case "tools":
			if err := d.once(&found, "tools", keyOff); err != nil {
				return err
			}
			if err := d.toolsValue("tools", `{"":`); err != nil {
				return err
			}
		case "result":
			if err := d.result(&found, keyOff); err != nil {
				return err
			}
		case "error":
			return d.rpcError(keyOff)
		default:
			if err := d.skip(); err != nil {
				return err
			}
		}
		d.mark(`{"":null`)
	}
	if err := d.close(); err != nil {
		return err
	}
	if found == "" {
		return d.errPos(obj, "", `expected a "tools" key holding the array of tools, or a JSON-RPC response whose "result" holds it`)
	}
	return nil
}

// result reads the "result" object of a JSON-RPC response: its "tools"
// array, and its "nextCursor", which warns that the file holds one page.
func (d *docReader) result(found *string, keyOff int64) error {
	before := d.dec.InputOffset()
	tok, err := d.dec.Token()
	if err != nil {
		return d.fail(err)
	}
	objOff := d.startOf(before, ':')
	if tok != json.Delim('{') {
		return d.expected(tok, objOff, "result", `an object {"tools": [...]}, the result of tools/list`)
	}
	obj := d.posOf(objOff)
	has := false
	for d.dec.More() {
		key, keyOff, err := d.key()
		if err != nil {
			return err
		}
		switch key {
		case "tools":
			if err := d.once(found, "result.tools", keyOff); err != nil {
				return err
			}
			has = true
			if err := d.toolsValue("result.tools", `{"":{"":`); err != nil {
				return err
			}
		case "nextCursor":
			if err := d.nextCursor(); err != nil {
				return err
			}
		default:
			if err := d.skip(); err != nil {
				return err
			}
		}
		d.mark(`{"":{"":null`)
	}
	if err := d.close(); err != nil {
		return err
	}
	if !has {
		return d.errPos(obj, "result", `expected a "tools" key holding the array of tools`)
	}
	return nil
}

// once records that the tools array was found at path, failing if it was
// found before.
func (d *docReader) once(found *string, path string, keyOff int64) error {
	switch *found {
	case "":
		*found = path
		return nil
	case path:
		return d.errAt(keyOff, path, `repeated key: "tools" must appear once`, nil)
	}
	return d.errAt(keyOff, path, fmt.Sprintf("the document holds tools at %s and at %s: keep one", *found, path), nil)
}

// nextCursor reads a tools/list result's cursor; a non-empty one means the
// server has more tools than the file holds.
func (d *docReader) nextCursor() error {
	before := d.dec.InputOffset()
	var cursor any
	if err := d.dec.Decode(&cursor); err != nil {
		return d.fail(err)
	}
	if s, ok := cursor.(string); ok && s != "" {
		line, col := d.tr.pos(d.startOf(before, ':'))
		d.cat.Warnings = append(d.cat.Warnings, &Error{
			Source: d.source, Line: line, Column: col, Path: "result.nextCursor",
			Msg: "the server has more tools: this file holds one page of tools/list; request the next pages with this cursor and merge their tools arrays",
		})
	}
	return nil
}

// rpcError reports a JSON-RPC error response.
func (d *docReader) rpcError(keyOff int64) error {
	var e struct {
		Code    json.Number `json:"code"`
		Message string      `json:"message"`
	}
	if err := d.dec.Decode(&e); err != nil {
		var ute *json.UnmarshalTypeError
		if !errors.As(err, &ute) {
			return d.fail(err)
		}
	}
	msg := "the file is a JSON-RPC error response, not a tools/list result"
	if e.Code != "" || e.Message != "" {
		msg += fmt.Sprintf(": %s %s", e.Code, strconv.Quote(e.Message))
	}
	return d.errAt(keyOff, "error", msg, nil)
}

// toolsValue reads the value of a "tools" key, which must be an array;
// ctx is the JSON text that opens the structures around it (see prefix).
func (d *docReader) toolsValue(path, ctx string) error {
	before := d.dec.InputOffset()
	tok, err := d.dec.Token()
	if err != nil {
		return d.fail(err)
	}
	if tok != json.Delim('[') {
		return d.expected(tok, d.startOf(before, ':'), path, "an array of tools")
	}
	return d.toolArray(path, ctx)
}

// toolArray reads the elements of the tools array, whose '[' has been
// read, one at a time; path names the array in errors, ctx is the JSON
// text that opens the structures around it (see prefix).
func (d *docReader) toolArray(path, ctx string) error {
	for i := 0; d.dec.More(); i++ {
		before := d.dec.InputOffset()
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return d.fail(err)
		}
		off := d.startOf(before, ',')
		if err := d.tool(raw, off, path+"["+strconv.Itoa(i)+"]"); err != nil {
			return err
		}
		d.tr.forget(off + int64(len(raw)))
		d.prefix = ctx + "[null"
	}
	return d.close()
}

// key reads an object key and returns it with its offset.
func (d *docReader) key() (string, int64, error) {
	before := d.dec.InputOffset()
	tok, err := d.dec.Token()
	if err != nil {
		return "", 0, d.fail(err)
	}
	key, _ := tok.(string) // the decoder returns only strings as keys
	return key, d.startOf(before, ','), nil
}

// skip reads and drops the next value, token by token, so that a value
// outside the tools array is not decoded.
func (d *docReader) skip() error {
	depth := 0
	for {
		tok, err := d.dec.Token()
		if err != nil {
			return d.fail(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// close reads the closing bracket of the object or array being read.
func (d *docReader) close() error {
	if _, err := d.dec.Token(); err != nil {
		return d.fail(err)
	}
	return nil
}
