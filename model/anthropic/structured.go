package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/quiver-go/quiver/internal/jsonobj"
	"github.com/quiver-go/quiver/model"
)

// outputConfig returns the request's "output_config" for so: the zero
// value (nothing sent) when so is nil, otherwise
//
//	{"format": {"type": "json_schema", "schema": …}}
//
// (sdk.OutputConfigParam with an sdk.JSONOutputFormatParam, SDK v2.15.0),
// which constrains Claude's text answer to the schema — on the Claude API
// and on Bedrock (WithBedrock), whose request body is the same. The
// format has no name or description field: so.Description becomes the
// root schema's description when it has none.
//
// The schema sent is a normalized copy of the declared one (anthropicSchema
// says how); the declared schema stays the contract the answer is
// validated against (package completion). A schema the API cannot
// represent is refused before anything is sent, with an error wrapping
// model.ErrStructuredOutputUnsupported that names the JSON path at fault.
func outputConfig(so *model.StructuredOutput) (sdk.OutputConfigParam, error) {
	if so == nil {
		return sdk.OutputConfigParam{}, nil
	}
	if err := so.Check(); err != nil {
		return sdk.OutputConfigParam{}, fmt.Errorf("anthropic: %w", err)
	}
	schema, err := anthropicSchema(so.Schema, so.Description)
	if err != nil {
		return sdk.OutputConfigParam{}, fmt.Errorf("anthropic: structured output %q: %w: %w", so.Name, err, model.ErrStructuredOutputUnsupported)
	}
	raw := jsonobj.Encode([]jsonobj.Member{{Key: "format", Value: jsonobj.Encode([]jsonobj.Member{
		{Key: "type", Value: json.RawMessage(`"json_schema"`)},
		{Key: "schema", Value: schema},
	})}})
	return param.Override[sdk.OutputConfigParam](raw), nil
}

// The keywords of a schema, as Claude's structured outputs treat them
// (https://platform.claude.com/docs/en/build-with-claude/structured-outputs,
// "JSON Schema limitations").
var (
	// keptKeywords are sent as declared (their subschemas normalized).
	keptKeywords = map[string]bool{
		"type": true, "properties": true, "required": true, "additionalProperties": true,
		"items": true, "enum": true, "const": true, "anyOf": true, "allOf": true, "oneOf": true,
		"$ref": true, "$defs": true, "definitions": true, "description": true, "title": true,
		"default": true, "pattern": true, "format": true, "minItems": true, "$schema": true,
	}
	// restatedKeywords are constraints the API does not enforce: they are
	// dropped from the copy sent and restated in the description, so the
	// model still reads them (the answer is validated against them after).
	restatedKeywords = map[string]bool{
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
		"minLength": true, "maxLength": true, "maxItems": true, "uniqueItems": true,
		"minProperties": true, "maxProperties": true, "contentEncoding": true, "contentMediaType": true,
	}
	// annotationKeywords constrain nothing: they are dropped.
	annotationKeywords = map[string]bool{
		"examples": true, "example": true, "$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	}
	// formats are the string formats the API enforces; others are
	// restated.
	formats = map[string]bool{
		"date-time": true, "time": true, "date": true, "duration": true, "email": true,
		"hostname": true, "uri": true, "ipv4": true, "ipv6": true, "uuid": true,
	}
)

// anthropicSchema returns the copy of schema sent to the API:
//
//   - constraints the API does not enforce (numeric bounds, string
//     lengths, maxItems, minItems above 1, uniqueItems, property counts,
//     formats outside its list) are dropped and restated at the end of the
//     subschema's description, e.g. "Constraints: minLength 3, maximum 10.";
//   - oneOf becomes anyOf, restated as "exactly one alternative";
//   - an object schema gets "additionalProperties": false when it allowed
//     other properties (absent or true): the API needs it, and an answer
//     without extra properties still meets the declared schema;
//   - annotations (examples, $comment, deprecated…) are dropped;
//   - description (the structured output's) is the root's description
//     when it has none.
//
// What cannot be represented is refused with its JSON Pointer: a
// recursive schema, an object whose additionalProperties is a schema (a
// map keyed by data), a boolean subschema, an enum of objects or arrays,
// a reference outside the document, and every other keyword (not,
// if/then/else, patternProperties, prefixItems, dependent*…).
func anthropicSchema(schema []byte, description string) (json.RawMessage, error) {
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, err
	}
	if path, ok := recursive(doc); ok {
		return nil, fmt.Errorf("%s: the schema is recursive, which Claude's structured outputs cannot represent: unroll it to a fixed depth", path)
	}
	out, err := normalize("#", schema)
	if err != nil {
		return nil, err
	}
	if description == "" {
		return out, nil
	}
	ms, err := jsonobj.Members(out)
	if err != nil {
		return nil, err
	}
	if _, ok := jsonobj.Get(ms, "description"); !ok {
		ms = append(ms, jsonobj.Member{Key: "description", Value: jsonobj.String(description)})
	}
	return jsonobj.Encode(ms), nil
}

// normalize returns the copy of the subschema raw at path.
func normalize(path string, raw json.RawMessage) (json.RawMessage, error) {
	ms, err := jsonobj.Members(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %s is a boolean or non-object subschema, which Claude's structured outputs cannot represent: write an object schema", path, bytes.TrimSpace(raw))
	}
	var out []jsonobj.Member
	var restated []string
	_, hasAnyOf := jsonobj.Get(ms, "anyOf")
	object := false
	for _, m := range ms {
		at := path + "/" + pointerToken(m.Key)
		switch {
		case annotationKeywords[m.Key]:
			continue
		case restatedKeywords[m.Key]:
			restated = append(restated, m.Key+" "+string(compact(m.Value)))
			continue
		case !keptKeywords[m.Key]:
			return nil, fmt.Errorf("%s: keyword %q cannot be represented by Claude's structured outputs: express the constraint with type, enum, anyOf or properties", path, m.Key)
		}
		switch m.Key {
		case "properties", "$defs", "definitions":
			v, err := normalizeMap(at, m.Value)
			if err != nil {
				return nil, err
			}
			m.Value = v
			if m.Key == "properties" {
				object = true
			}
		case "items":
			v, err := normalize(at, m.Value)
			if err != nil {
				return nil, err
			}
			m.Value = v
		case "anyOf", "allOf", "oneOf":
			if m.Key == "oneOf" && hasAnyOf {
				return nil, fmt.Errorf("%s: oneOf beside anyOf cannot be represented by Claude's structured outputs: combine them into one anyOf", path)
			}
			v, err := normalizeList(at, m.Value)
			if err != nil {
				return nil, err
			}
			m.Value = v
			if m.Key == "oneOf" {
				m.Key = "anyOf"
				restated = append(restated, "exactly one alternative of anyOf")
			}
		case "additionalProperties":
			switch string(bytes.TrimSpace(m.Value)) {
			case "false":
			case "true":
				continue // replaced by false below
			default:
				return nil, fmt.Errorf("%s: additionalProperties is a schema (an object keyed by data), which Claude's structured outputs cannot represent: they need additionalProperties false; use an array of key-value objects", path)
			}
		case "enum":
			var values []any
			if err := json.Unmarshal(m.Value, &values); err != nil {
				return nil, fmt.Errorf("%s: enum is not an array", at)
			}
			for i, v := range values {
				switch v.(type) {
				case map[string]any, []any:
					return nil, fmt.Errorf("%s/%d: an enum value that is an object or array cannot be represented by Claude's structured outputs: use const inside anyOf", at, i)
				}
			}
		case "$ref":
			var ref string
			if err := json.Unmarshal(m.Value, &ref); err != nil || !strings.HasPrefix(ref, "#") {
				return nil, fmt.Errorf("%s: $ref %s points outside the schema: inline it under $defs", path, m.Value)
			}
		case "format":
			var f string
			if json.Unmarshal(m.Value, &f) == nil && !formats[f] {
				restated = append(restated, "format "+f)
				continue
			}
		case "minItems":
			if n := string(bytes.TrimSpace(m.Value)); n != "0" && n != "1" {
				restated = append(restated, "minItems "+n)
				continue
			}
		case "type":
			object = object || typeIncludes(m.Value, "object")
		}
		out = append(out, m)
	}
	if object {
		out = jsonobj.Set(out, "additionalProperties", json.RawMessage("false"))
	}
	if len(restated) > 0 {
		note := "Constraints: " + strings.Join(restated, ", ") + "."
		if d, ok := jsonobj.Get(out, "description"); ok {
			var s string
			if json.Unmarshal(d, &s) == nil && s != "" {
				note = s + "\n\n" + note
			}
		}
		out = jsonobj.Set(out, "description", jsonobj.String(note))
	}
	return jsonobj.Encode(out), nil
}

// normalizeMap normalizes every subschema of a name-to-schema object.
func normalizeMap(path string, raw json.RawMessage) (json.RawMessage, error) {
	ms, err := jsonobj.Members(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: not an object of schemas", path)
	}
	for i, m := range ms {
		v, err := normalize(path+"/"+pointerToken(m.Key), m.Value)
		if err != nil {
			return nil, err
		}
		ms[i].Value = v
	}
	return jsonobj.Encode(ms), nil
}

// normalizeList normalizes every subschema of an array of schemas.
func normalizeList(path string, raw json.RawMessage) (json.RawMessage, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s: not an array of schemas", path)
	}
	out := make([]json.RawMessage, len(list))
	for i, s := range list {
		v, err := normalize(fmt.Sprintf("%s/%d", path, i), s)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return json.Marshal(out)
}

// recursive reports whether doc refers to itself through $ref, and the
// path of a reference closing a cycle.
func recursive(doc any) (string, bool) {
	// refs maps each definition pointer ("#" for the root) to the
	// references found inside it, outside nested definitions.
	refs := map[string][]string{}
	var collect func(owner, path string, v any)
	collect = func(owner, path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				child := path + "/" + pointerToken(k)
				if k == "$defs" || k == "definitions" {
					if defs, ok := v[k].(map[string]any); ok {
						for _, name := range slices.Sorted(maps.Keys(defs)) {
							p := child + "/" + pointerToken(name)
							if _, seen := refs[p]; !seen {
								refs[p] = nil // a definition, with or without references
							}
							collect(p, p, defs[name])
						}
						continue
					}
				}
				if r, ok := v[k].(string); ok && k == "$ref" {
					refs[owner] = append(refs[owner], r)
					continue
				}
				collect(owner, child, v[k])
			}
		case []any:
			for i, e := range v {
				collect(owner, fmt.Sprintf("%s/%d", path, i), e)
			}
		}
	}
	collect("#", "#", doc)
	// A reference reaches a definition when it names it or a path inside
	// it; a cycle is a definition reachable from itself.
	target := func(ref string) string {
		best := ""
		for def := range refs {
			if (ref == def || strings.HasPrefix(ref, def+"/")) && len(def) > len(best) {
				best = def
			}
		}
		return best
	}
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(def string) (string, bool)
	visit = func(def string) (string, bool) {
		state[def] = 1
		for _, r := range refs[def] {
			t := target(r)
			if t == "" {
				continue
			}
			if state[t] == 1 {
				return def, true
			}
			if state[t] == 0 {
				if p, ok := visit(t); ok {
					return p, true
				}
			}
		}
		state[def] = 2
		return "", false
	}
	defs := slices.Sorted(maps.Keys(refs))
	for _, d := range defs {
		if state[d] == 0 {
			if p, ok := visit(d); ok {
				return p, true
			}
		}
	}
	return "", false
}

// typeIncludes reports whether a "type" value is or lists name.
func typeIncludes(raw json.RawMessage, name string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == name
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, t := range many {
			if t == name {
				return true
			}
		}
	}
	return false
}

// compact returns raw without insignificant whitespace.
func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// pointerToken escapes a name as a JSON Pointer token.
func pointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
