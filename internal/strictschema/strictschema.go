package strictschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// MaxDepth is the deepest object nesting strict mode accepts.
const MaxDepth = 10

// MaxProperties is the most object properties, counted over the whole
// schema, strict mode accepts.
const MaxProperties = 5000

// Issue is one reason a schema is outside strict mode.
type Issue struct {
	// Path is the JSON Pointer of the subschema at fault, "#" for the root.
	Path string
	// Problem says what is outside strict mode there.
	Problem string
}

// String renders the issue as "path: problem".
func (i Issue) String() string { return i.Path + ": " + i.Problem }

// keywords are the schema keywords strict mode accepts anywhere.
var keywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "anyOf": true, "enum": true, "const": true, "$ref": true,
	"$defs": true, "definitions": true, "description": true, "title": true,
	"pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minItems": true, "maxItems": true,
}

// formats are the string formats strict mode accepts.
var formats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// parse decodes schema, which must be a JSON object.
func parse(schema []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("the schema has data after its JSON value")
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the schema is not a JSON object")
	}
	return root, nil
}

// CheckRoot returns an error saying why schema's root cannot be a
// Structured Outputs format, strict or not: it must be a JSON object
// declaring "type": "object", without anyOf or $ref in place of it.
func CheckRoot(schema []byte) error {
	root, err := parse(schema)
	if err != nil {
		return err
	}
	if _, ok := root["anyOf"]; ok {
		return errors.New(`the root schema is an anyOf: the API needs an object at the root; wrap the alternatives in a property of a root {"type":"object"}`)
	}
	if t, ok := root["type"].(string); !ok || t != "object" {
		what := "declares no type"
		if raw, ok := root["type"]; ok {
			b, _ := json.Marshal(raw)
			what = "has type " + string(b)
		}
		return fmt.Errorf(`the root schema %s: the API needs "type": "object" at the root (a $ref root must be inlined); wrap a non-object answer in a property of a root object`, what)
	}
	return nil
}

// Check returns every reason schema is outside strict mode, sorted by path
// then problem; none when strict mode accepts it as it is. It fails only
// when schema is not a JSON object.
func Check(schema []byte) ([]Issue, error) {
	root, err := parse(schema)
	if err != nil {
		return nil, err
	}
	w := &walker{}
	w.node("#", root, 0, true)
	if w.properties > MaxProperties {
		w.add("#", fmt.Sprintf("the schema declares %d properties, more than the %d strict mode accepts", w.properties, MaxProperties))
	}
	sort.Slice(w.issues, func(i, j int) bool {
		a, b := w.issues[i], w.issues[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Problem < b.Problem
	})
	return slices.Compact(w.issues), nil
}

// walker collects issues over a schema.
type walker struct {
	issues     []Issue
	properties int
}

func (w *walker) add(path, problem string) {
	w.issues = append(w.issues, Issue{Path: path, Problem: problem})
}

// node checks the subschema v at path; depth counts the object schemas
// around it.
func (w *walker) node(path string, v any, depth int, root bool) {
	s, ok := v.(map[string]any)
	if !ok {
		w.add(path, "a boolean or non-object subschema is outside strict mode: write it as an object schema")
		return
	}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		if !keywords[k] && !(root && k == "$schema") {
			w.add(path, fmt.Sprintf("keyword %q is outside strict mode", k))
		}
	}
	if f, ok := s["format"].(string); ok && !formats[f] {
		w.add(path, fmt.Sprintf("format %q is outside strict mode", f))
	}
	if isObject(s) {
		depth++
		if depth > MaxDepth {
			w.add(path, fmt.Sprintf("objects nest more than %d deep", MaxDepth))
		}
		if ap, ok := s["additionalProperties"]; !ok || ap != false {
			w.add(path, `an object schema needs "additionalProperties": false`)
		}
		props, _ := s["properties"].(map[string]any)
		w.properties += len(props)
		required := map[string]bool{}
		if list, ok := s["required"].([]any); ok {
			for _, r := range list {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		var missing []string
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if !required[name] {
				missing = append(missing, fmt.Sprintf("%q", name))
			}
		}
		if len(missing) > 0 {
			w.add(path, "every property must be required (make optional ones nullable instead): "+strings.Join(missing, ", ")+" not in \"required\"")
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			w.node(path+"/properties/"+escape(name), props[name], depth, false)
		}
	}
	if items, ok := s["items"]; ok {
		w.node(path+"/items", items, depth, false)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for i, a := range alts {
			w.node(fmt.Sprintf("%s/anyOf/%d", path, i), a, depth, false)
		}
	}
	for _, defs := range []string{"$defs", "definitions"} {
		if d, ok := s[defs].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(d)) {
				w.node(path+"/"+defs+"/"+escape(name), d[name], depth, false)
			}
		}
	}
}

// isObject reports whether s describes objects: its type is or includes
// "object", or it declares properties.
func isObject(s map[string]any) bool {
	if _, ok := s["properties"]; ok {
		return true
	}
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// escape escapes a name as a JSON Pointer token.
func escape(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
