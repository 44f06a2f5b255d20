package catalogfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// defaultInputSchema is the schema of a tool whose file gives none: an
// object with no declared properties.
const defaultInputSchema = `{"type":"object"}`

// toolValue is a tool decoded from the file, with where its parts are.
type toolValue struct {
	Tool
	// path names the tool in errors, e.g. "tools[3]".
	path string
	// nameOff is the offset of the name's value in the tool.
	nameOff int
	// schemaOff and schemaPath locate the input schema's value, or the
	// tool itself when it has none.
	schemaOff  int
	schemaPath string
}

// tool decodes one element of the tools array (r.data) and checks what can
// be checked field by field: the types, and text the runtime refuses
// (control characters, empty or repeated keywords and tags).
func (r *reader) tool(path string) (toolValue, error) {
	el := value{raw: r.data}
	if kindOf(el.raw) != "object" {
		return toolValue{}, r.expected(el, path, "a tool object")
	}
	if bad := invalidUTF8(r.data); bad >= 0 {
		return toolValue{}, r.errAt(bad, path, "invalid UTF-8: a catalog is UTF-8 text; convert the file (for example iconv -f latin1 -t utf-8)", nil)
	}
	ms, err := r.members(el)
	if err != nil {
		return toolValue{}, err
	}
	var (
		t    = toolValue{path: path, schemaPath: path}
		seen = make(map[string]string, len(ms))
	)
	for _, m := range ms {
		field, fieldPath := m.key, path+"."+m.key
		switch field {
		case "name", "title", "description", "keywords", "tags":
		case "inputSchema", "input_schema":
			field = "inputSchema"
		default:
			continue // other fields (server, annotations, ...) are ignored
		}
		if prev, ok := seen[field]; ok {
			msg := fmt.Sprintf("repeated key: %q must appear once per tool", m.key)
			if prev != m.key {
				msg = fmt.Sprintf("repeated key: %q and %q both give the input schema; keep one", prev, m.key)
			}
			return toolValue{}, r.errAt(m.keyOff, fieldPath, msg, nil)
		}
		seen[field] = m.key
		switch field {
		case "name":
			t.nameOff = m.val.off
			if t.Name, err = r.str(m.val, fieldPath, "a non-empty string", false); err != nil {
				return toolValue{}, err
			}
			if t.Name == "" {
				return toolValue{}, r.errAt(m.val.off, fieldPath, "expected a non-empty string, got an empty string", nil)
			}
		case "title":
			t.Title, err = r.text(m.val, fieldPath)
		case "description":
			t.Description, err = r.text(m.val, fieldPath)
		case "inputSchema":
			if kindOf(m.val.raw) != "object" {
				return toolValue{}, r.expected(m.val, fieldPath, "a JSON Schema object")
			}
			t.InputSchema, t.schemaOff, t.schemaPath = m.val.raw, m.val.off, fieldPath
		case "keywords":
			t.Keywords, err = r.terms(m.val, fieldPath, "keyword")
		case "tags":
			t.Tags, err = r.terms(m.val, fieldPath, "tag")
		}
		if err != nil {
			return toolValue{}, err
		}
	}
	if _, ok := seen["name"]; !ok {
		return toolValue{}, r.errAt(0, path+".name", "missing: every tool needs a non-empty string name", nil)
	}
	if t.InputSchema == nil {
		t.InputSchema = json.RawMessage(defaultInputSchema)
	}
	return t, nil
}

// str decodes a string value; when nullable, JSON null reads as "". want
// describes the expected value in errors.
func (r *reader) str(v value, path, want string, nullable bool) (string, error) {
	switch k := kindOf(v.raw); {
	case k == "null" && nullable:
		return "", nil
	case k != "string":
		return "", r.expected(v, path, want)
	}
	var s string
	if err := json.Unmarshal(v.raw, &s); err != nil {
		return "", r.errAt(v.off, path, "invalid JSON string: "+err.Error(), err)
	}
	return s, nil
}

// text decodes a title or a description: a string or null, without
// control characters other than tab and line breaks.
func (r *reader) text(v value, path string) (string, error) {
	s, err := r.str(v, path, "a string", true)
	if err != nil {
		return "", err
	}
	if c, ok := controlRune(s); ok {
		return "", r.errAt(v.off, path, fmt.Sprintf("contains the control character %U: remove it (tab and line breaks are the only ones allowed)", c), nil)
	}
	return s, nil
}

// terms decodes keywords or tags: an array of non-empty strings without
// control characters, tags without repeats; JSON null reads as none. what
// is "keyword" or "tag".
func (r *reader) terms(v value, path, what string) ([]string, error) {
	if bytes.Equal(v.raw, []byte("null")) {
		return nil, nil
	}
	if kindOf(v.raw) != "array" {
		return nil, r.expected(v, path, "an array of strings")
	}
	elems, err := r.elements(v)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(elems))
	for i, el := range elems {
		elPath := path + "[" + strconv.Itoa(i) + "]"
		s, err := r.str(el, elPath, "a string", false)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, r.errAt(el.off, elPath, fmt.Sprintf("empty %s: remove it or write the term", what), nil)
		}
		if c, ok := controlRune(s); ok {
			return nil, r.errAt(el.off, elPath, fmt.Sprintf("%s %q contains the control character %U: remove it", what, s, c), nil)
		}
		if what == "tag" {
			for j, prev := range out {
				if prev == s {
					return nil, r.errAt(el.off, elPath, fmt.Sprintf("tag %q is repeated: %s[%d] has it already", s, path, j), nil)
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// controlRune returns the first control character of s other than tab,
// line feed and carriage return.
func controlRune(s string) (rune, bool) {
	for _, c := range s {
		if unicode.IsControl(c) && c != '\t' && c != '\n' && c != '\r' {
			return c, true
		}
	}
	return 0, false
}

// invalidUTF8 returns the offset of the first byte of data that is not
// part of valid UTF-8, or -1.
func invalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		c, size := utf8.DecodeRune(data[i:])
		if c == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
