package tools

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checkKeys reports every key of a parsed payload that could reach a field
// it does not name exactly: injected fields in any spelling (at the root),
// and keys equal to a property declared at their place only under case or
// Unicode folding. encoding/json matches struct fields that way, last key
// winning, so such a key could overwrite a value a prompt showed or the
// runtime injected; refusing it keeps the payload unambiguous for every
// decoder.
func checkKeys(spec ToolSpec, obj map[string]any) []PayloadProblem {
	var probs []PayloadProblem
	var root []*jsonschema.Schema
	if spec.Payload.compiled != nil {
		root = []*jsonschema.Schema{spec.Payload.compiled.root}
	}
	for _, k := range sortedKeys(obj) {
		for _, f := range spec.Inject {
			if strings.EqualFold(k, f.Name) {
				probs = append(probs, PayloadProblem{Kind: PayloadInjectedField, Path: joinPath("", k), Message: fmt.Sprintf(
					"%s is filled in by the runtime from the run's context, never by the caller: remove it from the arguments", strconv.Quote(f.Name))})
			}
		}
	}
	walkKeys(obj, root, "", &probs)
	slices.SortStableFunc(probs, func(a, b PayloadProblem) int { return strings.Compare(a.Path, b.Path) })
	return probs
}

// walkKeys checks v against the schemas that apply at path.
func walkKeys(v any, schemas []*jsonschema.Schema, path string, probs *[]PayloadProblem) {
	schemas = expandSchemas(schemas)
	switch v := v.(type) {
	case map[string]any:
		declared := map[string]bool{}
		for _, s := range schemas {
			for name := range s.Properties {
				declared[name] = true
			}
		}
		for _, k := range sortedKeys(v) {
			at := joinPath(path, k)
			if declared[k] {
				walkKeys(v[k], propertySchemas(schemas, k), at, probs)
				continue
			}
			if d, ok := foldMatch(declared, k); ok {
				*probs = append(*probs, PayloadProblem{Kind: PayloadKeyVariant, Path: at, Message: fmt.Sprintf(
					"the key %s is not %s: property names are matched exactly; use %s", quoteKey(k), strconv.Quote(d), strconv.Quote(d))})
				continue
			}
			walkKeys(v[k], additionalSchemas(schemas), at, probs)
		}
	case []any:
		for i, e := range v {
			walkKeys(e, itemSchemas(schemas, i), path+"["+strconv.Itoa(i)+"]", probs)
		}
	}
}

// expandSchemas returns schemas with everything that also applies at the
// same place: references and the branches of allOf, anyOf, oneOf and
// if/then/else, each schema once.
func expandSchemas(schemas []*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || slices.Contains(out, s) {
			return
		}
		out = append(out, s)
		add(s.Ref)
		if s.DynamicRef != nil {
			add(s.DynamicRef.Ref)
		}
		for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, b := range list {
				add(b)
			}
		}
		add(s.If)
		add(s.Then)
		add(s.Else)
	}
	for _, s := range schemas {
		add(s)
	}
	return out
}

func propertySchemas(schemas []*jsonschema.Schema, name string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, s := range schemas {
		if p, ok := s.Properties[name]; ok {
			out = append(out, p)
		}
	}
	return out
}

func additionalSchemas(schemas []*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, s := range schemas {
		if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			out = append(out, ap)
		}
	}
	return out
}

func itemSchemas(schemas []*jsonschema.Schema, i int) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, s := range schemas {
		if i < len(s.PrefixItems) {
			out = append(out, s.PrefixItems[i])
		} else if s.Items2020 != nil {
			out = append(out, s.Items2020)
		}
		switch items := s.Items.(type) {
		case *jsonschema.Schema:
			out = append(out, items)
		case []*jsonschema.Schema:
			if i < len(items) {
				out = append(out, items[i])
			}
		}
	}
	return out
}

// foldMatch returns the declared name k equals under Unicode case folding.
func foldMatch(declared map[string]bool, k string) (string, bool) {
	var match []string
	for d := range declared {
		if strings.EqualFold(d, k) {
			match = append(match, d)
		}
	}
	if len(match) == 0 {
		return "", false
	}
	slices.Sort(match)
	return match[0], true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
