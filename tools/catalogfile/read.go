package catalogfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
)

// defaultInputSchema is the schema of a tool whose file gives none: an
// object with no declared properties.
const defaultInputSchema = `{"type":"object"}`

// Load reads the catalog file at path; errors name the file as path.
func Load(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("catalogfile: %w", err)
	}
	return parse(data, path)
}

// Read reads a catalog from r. source names the input in errors and becomes
// the catalog's Source (a file name, or a description such as
// "workspace.json (embedded)").
func Read(r io.Reader, source string) (*Catalog, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &Error{Source: source, Msg: "cannot read: " + err.Error(), Err: err}
	}
	return parse(data, source)
}

// parse decodes and validates a whole catalog file.
func parse(data []byte, source string) (*Catalog, error) {
	r := &reader{source: source, data: data}
	doc, err := r.document()
	if err != nil {
		return nil, err
	}
	list, path, err := r.toolList(doc)
	if err != nil {
		return nil, err
	}
	elems, err := r.elements(list)
	if err != nil {
		return nil, err
	}
	c := &Catalog{Source: source, Tools: make([]Tool, 0, len(elems))}
	first := make(map[string]int, len(elems))
	for i, el := range elems {
		elPath := path + "[" + strconv.Itoa(i) + "]"
		t, nameVal, err := r.tool(el, elPath)
		if err != nil {
			return nil, err
		}
		if j, dup := first[t.Name]; dup {
			line, col := position(data, elems[j].off)
			return nil, r.errAt(nameVal.off, elPath+".name", fmt.Sprintf("duplicate tool name %q: %s[%d] at %d:%d has it already; names must be unique", t.Name, path, j, line, col), nil)
		}
		first[t.Name] = i
		c.Tools = append(c.Tools, t)
	}
	return c, nil
}

// toolList returns the array of tools: the document itself, or the value
// of its "tools" key. path is how errors name that array.
func (r *reader) toolList(doc value) (list value, path string, err error) {
	switch kindOf(doc.raw) {
	case "array":
		return doc, "tools", nil
	case "object":
	default:
		return value{}, "", r.expected(doc, "", `a JSON object {"tools": [...]} or an array of tools`)
	}
	ms, err := r.members(doc)
	if err != nil {
		return value{}, "", err
	}
	found := false
	for _, m := range ms {
		if m.key != "tools" {
			continue
		}
		if found {
			return value{}, "", r.errAt(m.keyOff, "tools", `repeated key: "tools" must appear once`, nil)
		}
		found = true
		list = m.val
	}
	if !found {
		return value{}, "", r.errAt(doc.off, "", `expected a "tools" key holding the array of tools`, nil)
	}
	if kindOf(list.raw) != "array" {
		return value{}, "", r.expected(list, "tools", "an array of tools")
	}
	return list, "tools", nil
}

// tool decodes and validates one element of the tools array. It also
// returns the name's value, for duplicate-name errors.
func (r *reader) tool(el value, path string) (Tool, value, error) {
	if kindOf(el.raw) != "object" {
		return Tool{}, value{}, r.expected(el, path, "a tool object")
	}
	ms, err := r.members(el)
	if err != nil {
		return Tool{}, value{}, err
	}
	var (
		t       Tool
		nameVal value
		seen    = make(map[string]bool, len(ms))
	)
	for _, m := range ms {
		fieldPath := path + "." + m.key
		switch m.key {
		case "name", "title", "description", "inputSchema", "keywords", "tags":
		default:
			continue // other fields (server, annotations, ...) are ignored
		}
		if seen[m.key] {
			return Tool{}, value{}, r.errAt(m.keyOff, fieldPath, fmt.Sprintf("repeated key: %q must appear once per tool", m.key), nil)
		}
		seen[m.key] = true
		switch m.key {
		case "name":
			nameVal = m.val
			if t.Name, err = r.str(m.val, fieldPath, "a non-empty string", false); err != nil {
				return Tool{}, value{}, err
			}
			if t.Name == "" {
				return Tool{}, value{}, r.errAt(m.val.off, fieldPath, "expected a non-empty string, got an empty string", nil)
			}
		case "title":
			t.Title, err = r.str(m.val, fieldPath, "a string", true)
		case "description":
			t.Description, err = r.str(m.val, fieldPath, "a string", true)
		case "inputSchema":
			if kindOf(m.val.raw) != "object" {
				return Tool{}, value{}, r.expected(m.val, fieldPath, "a JSON Schema object")
			}
			t.InputSchema = m.val.raw
		case "keywords":
			t.Keywords, err = r.strs(m.val, fieldPath)
		case "tags":
			t.Tags, err = r.strs(m.val, fieldPath)
		}
		if err != nil {
			return Tool{}, value{}, err
		}
	}
	if !seen["name"] {
		return Tool{}, value{}, r.errAt(el.off, path+".name", "missing: every tool needs a non-empty string name", nil)
	}
	if t.InputSchema == nil {
		t.InputSchema = json.RawMessage(defaultInputSchema)
	}
	return t, nameVal, nil
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

// strs decodes an array of strings; JSON null reads as no strings.
func (r *reader) strs(v value, path string) ([]string, error) {
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
		s, err := r.str(el, path+"["+strconv.Itoa(i)+"]", "a string", false)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
