package catalogfile

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// reader holds one value of a catalog file, a tool, so that every value it
// hands out can be located by line and column in the file.
type reader struct {
	source string
	data   []byte
	// line and col locate data[0] in the file.
	line, col int
}

// value is one JSON value of the input and the offset of its first byte.
type value struct {
	raw json.RawMessage
	off int
}

// member is one key of a JSON object and its value.
type member struct {
	key    string
	keyOff int
	val    value
}

// kind names the JSON type of raw, which must be a valid JSON value.
func kindOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// members returns the keys of object v in file order. v must be an object.
func (r *reader) members(v value) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil { // '{'
		return nil, r.syntaxError(v.off, err)
	}
	var out []member
	for dec.More() {
		keyOff := skipSpace(v.raw, int(dec.InputOffset()), ',')
		tok, err := dec.Token()
		if err != nil {
			return nil, r.syntaxError(v.off, err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, r.errAt(v.off+keyOff, "", fmt.Sprintf("invalid JSON: object key %v is not a string", tok), nil)
		}
		valOff := skipSpace(v.raw, int(dec.InputOffset()), ':')
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, r.syntaxError(v.off, err)
		}
		out = append(out, member{key: key, keyOff: v.off + keyOff, val: value{raw: raw, off: v.off + valOff}})
	}
	return out, nil
}

// elements returns the values of array v in order. v must be an array.
func (r *reader) elements(v value) ([]value, error) {
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil { // '['
		return nil, r.syntaxError(v.off, err)
	}
	var out []value
	for dec.More() {
		off := skipSpace(v.raw, int(dec.InputOffset()), ',')
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, r.syntaxError(v.off, err)
		}
		out = append(out, value{raw: raw, off: v.off + off})
	}
	return out, nil
}

// skipSpace returns the offset of the first byte at or after i in data that
// is neither JSON white space nor one of the given separators.
func skipSpace(data []byte, i int, separators ...byte) int {
	for i < len(data) {
		switch c := data[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case bytes.IndexByte(separators, c) >= 0:
		default:
			return i
		}
		i++
	}
	return i
}
