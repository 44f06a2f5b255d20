package codegen

import (
	"encoding/json"
	"fmt"
	"slices"

	goaexpr "goa.design/goa/v3/expr"
	"goa.design/goa/v3/http/codegen/openapi"
)

// schemas are the JSON Schemas of one tool's payload, as declared and as the
// model sees it.
type schemas struct {
	// Full is the payload schema with its injected fields.
	Full json.RawMessage
	// ModelFacing is Full without the injected fields, in properties and
	// in the required list.
	ModelFacing json.RawMessage
	// Injected maps each injected field to its own property schema.
	Injected map[string]json.RawMessage
	// Example is the declared root example as the model sends it (without
	// injected fields), or nil.
	Example json.RawMessage
}

// attributeSchema returns the self-contained JSON Schema of att, built by
// Goa's OpenAPI generator: user types referenced inside become "$defs" of
// the returned schema, and only examples declared in the design are kept
// (Goa synthesizes the others).
func attributeSchema(api *goaexpr.APIExpr, att *goaexpr.AttributeExpr) (*openapi.Schema, error) {
	root := resolve(att)
	// openapi keeps the definitions of referenced user types in package
	// state: start from none so the schema carries exactly its own.
	openapi.Definitions = make(map[string]*openapi.Schema)
	s := openapi.AttributeTypeSchema(api, root)
	if s.Description == "" {
		s.Description = att.Description
	}
	if s.Description == "" {
		s.Description = root.Description
	}
	uts := map[string]*goaexpr.AttributeExpr{}
	collectUserTypes(att, uts, map[*goaexpr.AttributeExpr]bool{})
	pruneExamples(s, root)
	for name, def := range openapi.Definitions {
		pruneExamples(def, uts[name])
		s.Defs[name] = def
	}
	if exs := att.ExtractUserExamples(); len(exs) > 0 {
		s.Example = exs[0].Value
	}
	if s.Type == "" && s.Ref != "" {
		return nil, fmt.Errorf("the schema of %q is a reference", att.Type.Name())
	}
	return s, nil
}

// resolve returns the attribute describing att's structure: the attribute
// of its user type, if any.
func resolve(att *goaexpr.AttributeExpr) *goaexpr.AttributeExpr {
	if ut, ok := att.Type.(goaexpr.UserType); ok && ut != goaexpr.Empty {
		return resolve(ut.Attribute())
	}
	return att
}

// collectUserTypes maps the type names of the user types att refers to, at
// any depth, to their attributes.
func collectUserTypes(att *goaexpr.AttributeExpr, out map[string]*goaexpr.AttributeExpr, seen map[*goaexpr.AttributeExpr]bool) {
	if att == nil || seen[att] {
		return
	}
	seen[att] = true
	switch t := att.Type.(type) {
	case goaexpr.UserType:
		if n, ok := t.Attribute().Meta["openapi:typename"]; ok && len(n) > 0 {
			out[n[0]] = t.Attribute()
		}
		if ut, ok := t.(*goaexpr.UserTypeExpr); ok {
			out[ut.TypeName] = t.Attribute()
		}
		if rt, ok := t.(*goaexpr.ResultTypeExpr); ok {
			out[rt.TypeName] = t.Attribute()
		}
		collectUserTypes(t.Attribute(), out, seen)
	case *goaexpr.Object:
		for _, nat := range *t {
			collectUserTypes(nat.Attribute, out, seen)
		}
	case *goaexpr.Array:
		collectUserTypes(t.ElemType, out, seen)
	case *goaexpr.Map:
		collectUserTypes(t.KeyType, out, seen)
		collectUserTypes(t.ElemType, out, seen)
	}
}

// pruneExamples removes from s the examples Goa synthesized: an example
// stays only where att (s's attribute, nil when unknown) declares one.
func pruneExamples(s *openapi.Schema, att *goaexpr.AttributeExpr) {
	if s == nil {
		return
	}
	if att == nil || len(att.UserExamples) == 0 {
		s.Example = nil
	}
	var obj *goaexpr.Object
	var elem *goaexpr.AttributeExpr
	if att != nil {
		r := resolve(att)
		obj = goaexpr.AsObject(r.Type)
		if a := goaexpr.AsArray(r.Type); a != nil {
			elem = a.ElemType
		}
	}
	for name, p := range s.Properties {
		var pa *goaexpr.AttributeExpr
		if obj != nil {
			pa = obj.Attribute(name)
		}
		pruneExamples(p, pa)
	}
	pruneExamples(s.Items, elem)
	for _, a := range s.AnyOf {
		pruneExamples(a, nil)
	}
	if ap, ok := s.AdditionalProperties.(*openapi.Schema); ok {
		pruneExamples(ap, nil)
	}
}

// payloadSchemas returns the schemas of a tool's payload with the fields
// named in inject hidden from the model. Every injected field must be a
// property of the payload object. Both schemas are closed (closePayload):
// every object refuses undeclared properties, except the root when open
// (the tool's OpenArgs).
func payloadSchemas(api *goaexpr.APIExpr, args *goaexpr.AttributeExpr, inject []string, open bool) (schemas, error) {
	var out schemas
	if args == nil {
		obj := openapi.NewSchema()
		obj.Type = openapi.Object
		closePayload(obj, open)
		args := must(obj.JSON())
		out.Full, out.ModelFacing = args, args
		return out, nil
	}
	s, err := attributeSchema(api, args)
	if err != nil {
		return out, err
	}
	closePayload(s, open)
	full, err := s.JSON()
	if err != nil {
		return out, fmt.Errorf("encode payload schema: %w", err)
	}
	out.Full = full
	props := s.Properties
	s.Properties = make(map[string]*openapi.Schema, len(props))
	out.Injected = make(map[string]json.RawMessage, len(inject))
	for name, p := range props {
		if !slices.Contains(inject, name) {
			s.Properties[name] = p
			continue
		}
		if out.Injected[name], err = json.Marshal(p); err != nil {
			return out, fmt.Errorf("encode injected field %q: %w", name, err)
		}
	}
	for _, name := range inject {
		if _, ok := out.Injected[name]; !ok {
			return out, fmt.Errorf("injected field %q is not a property of the payload", name)
		}
	}
	s.Required = slices.DeleteFunc(slices.Clone(s.Required), func(r string) bool { return slices.Contains(inject, r) })
	if m, ok := s.Example.(map[string]any); ok && len(inject) > 0 {
		ex := make(map[string]any, len(m))
		for k, v := range m {
			if !slices.Contains(inject, k) {
				ex[k] = v
			}
		}
		s.Example = ex
	}
	if s.Example != nil {
		if out.Example, err = json.Marshal(s.Example); err != nil {
			return out, fmt.Errorf("encode payload example: %w", err)
		}
	}
	if out.ModelFacing, err = s.JSON(); err != nil {
		return out, fmt.Errorf("encode payload schema: %w", err)
	}
	return out, nil
}

// typeSchema returns the JSON Schema of a result or server data attribute,
// or nil for a nil attribute.
func typeSchema(api *goaexpr.APIExpr, att *goaexpr.AttributeExpr) (json.RawMessage, error) {
	if att == nil {
		return nil, nil
	}
	s, err := attributeSchema(api, att)
	if err != nil {
		return nil, err
	}
	return s.JSON()
}

// must returns v, panicking on err: for encodings that cannot fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
