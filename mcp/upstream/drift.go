package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quiver-go/quiver/tools"
)

// DriftError reports the declared tools a server lists differently or not
// at all: [Client.DeclaredToolset] refuses the toolset with it, and calls
// none of its tools.
//
// Schemas are compared after normalization: key order is ignored, and so
// are "$schema", "$id", "$comment" and the annotation keywords
// ("description", "title", "examples", "example", "default",
// "deprecated", "readOnly", "writeOnly") wherever a schema may be nested;
// "required" is a set; numbers compare by value; a root
// "additionalProperties": false is dropped, since a root without
// "additionalProperties" is closed for the declared tool too
// ([contract.ToolDeclaration.InputSchema]); properties the declared tool
// injects are not compared.
type DriftError struct {
	// Server and Toolset name the server and the declared toolset.
	Server  string
	Toolset string
	// Tools are the declared tools the server disagrees on, in declared
	// order.
	Tools []ToolDrift
}

// ToolDrift is one declared tool the server disagrees on.
type ToolDrift struct {
	// Tool is the declared tool name.
	Tool string
	// Missing is set when the server does not list the tool.
	Missing bool
	// Diff says where the schemas differ (JSON pointers and both values),
	// one line per difference: `/properties/n/type: declared "integer",
	// server "string"`.
	Diff []string
}

// Error lists every tool and difference, one per line.
func (e *DriftError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "upstream: server %q disagrees with toolset %q on %d declared tool(s); the toolset is refused and none of its tools is called:", e.Server, e.Toolset, len(e.Tools))
	for _, t := range e.Tools {
		if t.Missing {
			fmt.Fprintf(&b, "\n  tool %s: the server does not list it", t.Tool)
			continue
		}
		fmt.Fprintf(&b, "\n  tool %s: its input schema differs:", t.Tool)
		for _, d := range t.Diff {
			b.WriteString("\n    " + d)
		}
	}
	return b.String()
}

// ignoredKeywords are dropped from every schema before comparing.
var ignoredKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true,
	"description": true, "title": true, "examples": true, "example": true,
	"default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// Where subschemas are: keywords holding one, a map of them, a list of
// them.
var (
	schemaKeywords = map[string]bool{
		"additionalProperties": true, "items": true, "not": true, "if": true, "then": true,
		"else": true, "contains": true, "propertyNames": true, "unevaluatedProperties": true,
		"unevaluatedItems": true, "additionalItems": true,
	}
	schemaMapKeywords = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true,
	}
	schemaListKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
)

// schemaDiff compares spec's declared input schema with the server's.
func schemaDiff(spec tools.ToolSpec, server json.RawMessage) ([]string, error) {
	declared, err := decode(spec.Payload.Schema)
	if err != nil {
		return nil, fmt.Errorf("declared input schema: %w", err)
	}
	theirs, err := decode(server)
	if err != nil {
		return nil, fmt.Errorf("the server's input schema: %w", err)
	}
	declared, theirs = normalizeRoot(declared, nil), normalizeRoot(theirs, spec.Inject)
	var diff []string
	compare("", declared, theirs, &diff)
	return diff, nil
}

func decode(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{"type": "object"}, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// normalizeRoot normalizes a root schema, dropping the injected
// properties.
func normalizeRoot(v any, inject []tools.InjectedField) any {
	v = normalize(v)
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if ap, ok := m["additionalProperties"].(bool); ok && !ap {
		delete(m, "additionalProperties")
	}
	props, _ := m["properties"].(map[string]any)
	for _, f := range inject {
		delete(props, f.Name)
		if req, ok := m["required"].([]any); ok {
			m["required"] = slices.DeleteFunc(req, func(r any) bool { return r == f.Name })
		}
	}
	if req, ok := m["required"].([]any); ok && len(req) == 0 {
		delete(m, "required")
	}
	return m
}

// normalize drops the ignored keywords of a schema and of its subschemas
// and sorts "required".
func normalize(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		switch {
		case ignoredKeywords[k]:
			continue
		case schemaKeywords[k]:
			if list, ok := x.([]any); ok { // items as a list (older drafts)
				out[k] = normalizeList(list)
			} else {
				out[k] = normalize(x)
			}
		case schemaMapKeywords[k]:
			if sub, ok := x.(map[string]any); ok {
				n := make(map[string]any, len(sub))
				for name, s := range sub {
					n[name] = normalize(s)
				}
				out[k] = n
			} else {
				out[k] = x
			}
		case schemaListKeywords[k]:
			if list, ok := x.([]any); ok {
				out[k] = normalizeList(list)
			} else {
				out[k] = x
			}
		case k == "required":
			if list, ok := x.([]any); ok {
				list = slices.Clone(list)
				sort.Slice(list, func(i, j int) bool { return fmt.Sprint(list[i]) < fmt.Sprint(list[j]) })
				out[k] = list
			} else {
				out[k] = x
			}
		default:
			out[k] = x
		}
	}
	return out
}

func normalizeList(list []any) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = normalize(s)
	}
	return out
}

// compare appends a line per difference between a (declared) and b (the
// server's) at pointer at.
func compare(at string, a, b any, diff *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := at + "/" + escapePointer(k)
			av, ain := am[k]
			bv, bin := bm[k]
			switch {
			case !ain:
				*diff = append(*diff, fmt.Sprintf("%s: declared (absent), server %s", p, show(bv)))
			case !bin:
				*diff = append(*diff, fmt.Sprintf("%s: declared %s, server (absent)", p, show(av)))
			default:
				compare(p, av, bv, diff)
			}
		}
		return
	}
	al, alok := a.([]any)
	bl, blok := b.([]any)
	if alok && blok && len(al) == len(bl) {
		for i := range al {
			compare(at+"/"+strconv.Itoa(i), al[i], bl[i], diff)
		}
		return
	}
	if !equal(a, b) {
		p := at
		if p == "" {
			p = "(root)"
		}
		*diff = append(*diff, fmt.Sprintf("%s: declared %s, server %s", p, show(a), show(b)))
	}
}

// equal compares two JSON values, numbers by value.
func equal(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		if an == bn {
			return true
		}
		af, err1 := an.Float64()
		bf, err2 := bn.Float64()
		return err1 == nil && err2 == nil && af == bf
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return bytes.Equal(ab, bb)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// escapePointer escapes a JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
