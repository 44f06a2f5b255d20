package tools

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is where a TypeSpec's schema lives for the compiler; it appears
// in nothing a caller reads.
const schemaURL = "quiver:///schema.json"

// compiledSchema is a TypeSpec's validator. It is immutable once built and
// shared by every copy of the TypeSpec.
type compiledSchema struct {
	root *jsonschema.Schema
	// byLocation indexes every subschema by its location, so violations can
	// name, for example, the properties an object allows.
	byLocation map[string]*jsonschema.Schema
}

// refusingLoader refuses every reference outside the schema document: a tool
// contract must be self-contained, and loading files or URLs named by a
// runtime-declared schema would let a provider read the consumer's disk.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("reference to %q is outside the schema: inline it or move it under \"$defs\"", url)
}

// compileSchema parses and compiles a JSON Schema document.
func compileSchema(schema []byte) (*compiledSchema, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, fmt.Errorf("%w: the schema is empty: use {} to accept any JSON value", ErrInvalidSchema)
	}
	doc, err := parseJSON(schema)
	if err != nil {
		var je *JSONError
		if errors.As(err, &je) {
			return nil, fmt.Errorf("%w: malformed JSON at offset %d: %s", ErrInvalidSchema, je.Offset, je.Problem)
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, err)
	}
	root, err := compileRoot(doc)
	if err != nil {
		// The library's errors follow map order: report them in a fixed
		// one (see stableCompileError).
		return nil, fmt.Errorf("%w: %w", ErrInvalidSchema, stableCompileError(doc, err))
	}
	cs := &compiledSchema{root: root, byLocation: make(map[string]*jsonschema.Schema)}
	cs.index(root)
	return cs, nil
}

// compileRoot compiles a parsed schema document.
func compileRoot(doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// compileDocument reports whether a parsed schema document compiles.
func compileDocument(doc any) error {
	_, err := compileRoot(doc)
	return err
}

// index records s and every schema reachable from it.
func (cs *compiledSchema) index(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if _, seen := cs.byLocation[s.Location]; seen {
		return
	}
	cs.byLocation[s.Location] = s
	one := func(v any) {
		switch v := v.(type) {
		case *jsonschema.Schema:
			cs.index(v)
		case []*jsonschema.Schema:
			for _, e := range v {
				cs.index(e)
			}
		}
	}
	for _, e := range []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else,
		s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema} {
		cs.index(e)
	}
	if s.DynamicRef != nil {
		cs.index(s.DynamicRef.Ref)
	}
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
		one(list)
	}
	for _, p := range s.Properties {
		cs.index(p)
	}
	for _, p := range s.PatternProperties {
		cs.index(p)
	}
	for _, p := range s.DependentSchemas {
		cs.index(p)
	}
	for _, d := range s.Dependencies {
		one(d)
	}
	one(s.AdditionalProperties)
	one(s.Items)
	one(s.AdditionalItems)
}

// validate checks a parsed value, returning a *ValidationError.
func (cs *compiledSchema) validate(v any) error {
	err := cs.root.Validate(v)
	if err == nil {
		return nil
	}
	return newValidationError(cs, v, err)
}

// allowedProperties returns the sorted property names declared by the
// schema at location, or nil.
func (cs *compiledSchema) allowedProperties(location string) []string {
	s := cs.byLocation[location]
	if s == nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SchemaProperty describes one top-level property of a [TypeSpec]'s schema.
type SchemaProperty struct {
	// Declared reports whether the root schema (after following "$ref")
	// declares the property.
	Declared bool
	// Required reports whether the root schema requires it.
	Required bool
	// Types lists the property's declared JSON types ("string", ...), or nil
	// when it declares none.
	Types []string
}

// Property describes the top-level property name of t's schema, following
// "$ref" chains from the root. It reports Declared false for a [TypeSpec]
// without a compiled schema.
func (t TypeSpec) Property(name string) SchemaProperty {
	if t.compiled == nil {
		return SchemaProperty{}
	}
	s := t.compiled.root
	for i := 0; s.Ref != nil && len(s.Properties) == 0 && i < 32; i++ {
		s = s.Ref
	}
	p, ok := s.Properties[name]
	if !ok {
		return SchemaProperty{Required: slices.Contains(s.Required, name)}
	}
	out := SchemaProperty{Declared: true, Required: slices.Contains(s.Required, name)}
	for i := 0; p.Ref != nil && p.Types == nil && i < 32; i++ {
		p = p.Ref
	}
	if p.Types != nil {
		out.Types = p.Types.ToStrings()
	}
	return out
}
