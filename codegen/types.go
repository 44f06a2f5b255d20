package codegen

import (
	"slices"
	"strings"

	goacodegen "goa.design/goa/v3/codegen"
	goaexpr "goa.design/goa/v3/expr"
)

// typeDef is one Go type declaration of a generated toolset package.
type typeDef struct {
	// Name is the Go type name.
	Name string
	// Comment documents the type.
	Comment string
	// Def is the type's definition (what follows "type Name ").
	Def string
}

// typeGen generates the Go types of one toolset package with Goa's type
// generation. It works on copies of the design's attributes, tagged with
// their JSON names, so the design itself is never modified.
type typeGen struct {
	scope *goacodegen.NameScope
	defs  []typeDef
	// done records the user types already declared, by Go name.
	done map[string]bool
}

// newTypeGen returns a generator with an empty name scope.
func newTypeGen() *typeGen {
	return &typeGen{scope: goacodegen.NewNameScope(), done: map[string]bool{}}
}

// unique reserves a Go name in the package.
func (g *typeGen) unique(name string) string { return g.scope.Unique(name) }

// declare adds the named type of a payload or result: the Go form of att
// (nil: an empty struct), with the user types it refers to.
func (g *typeGen) declare(name, comment string, att *goaexpr.AttributeExpr) {
	if att == nil {
		g.defs = append(g.defs, typeDef{Name: name, Comment: comment, Def: "struct{}"})
		return
	}
	dup := tagged(att)
	root := dup
	if ut, ok := dup.Type.(goaexpr.UserType); ok && ut != goaexpr.Empty {
		root = ut.Attribute()
	}
	g.defs = append(g.defs, typeDef{Name: name, Comment: comment, Def: g.scope.GoTypeDef(root, false, false)})
	g.userTypes(root, map[*goaexpr.AttributeExpr]bool{})
}

// declareNested declares the user types att refers to, at any depth,
// without a type of its own (the root of an array or map).
func (g *typeGen) declareNested(att *goaexpr.AttributeExpr) {
	g.userTypes(tagged(att), map[*goaexpr.AttributeExpr]bool{})
}

// userTypes declares the user types att refers to, at any depth.
func (g *typeGen) userTypes(att *goaexpr.AttributeExpr, seen map[*goaexpr.AttributeExpr]bool) {
	if att == nil || seen[att] {
		return
	}
	seen[att] = true
	switch t := att.Type.(type) {
	case goaexpr.UserType:
		if t == goaexpr.Empty {
			return
		}
		name := g.scope.GoTypeName(att)
		if !g.done[name] {
			g.done[name] = true
			comment := name + " is the " + t.Name() + " type of the design."
			if d := t.Attribute().Description; d != "" {
				comment = strings.TrimSuffix(comment, ".") + ": " + d
			}
			g.defs = append(g.defs, typeDef{Name: name, Comment: comment, Def: g.scope.GoTypeDef(t.Attribute(), false, false)})
		}
		g.userTypes(t.Attribute(), seen)
	case *goaexpr.Object:
		for _, nat := range *t {
			g.userTypes(nat.Attribute, seen)
		}
	case *goaexpr.Array:
		g.userTypes(t.ElemType, seen)
	case *goaexpr.Map:
		g.userTypes(t.KeyType, seen)
		g.userTypes(t.ElemType, seen)
	}
}

// tagged returns a deep copy of att in which every object field carries
// its JSON name as a struct tag (Goa adds omitempty to optional fields).
func tagged(att *goaexpr.AttributeExpr) *goaexpr.AttributeExpr {
	dup := goaexpr.DupAtt(att)
	tagFields(dup, map[*goaexpr.AttributeExpr]bool{})
	return dup
}

// tagFields sets "struct:tag:json:name" on the fields of att, at any depth.
func tagFields(att *goaexpr.AttributeExpr, seen map[*goaexpr.AttributeExpr]bool) {
	if att == nil || seen[att] {
		return
	}
	seen[att] = true
	switch t := att.Type.(type) {
	case goaexpr.UserType:
		tagFields(t.Attribute(), seen)
	case *goaexpr.Object:
		for _, nat := range *t {
			if nat.Attribute.Meta == nil {
				nat.Attribute.Meta = goaexpr.MetaExpr{}
			}
			if _, ok := nat.Attribute.Meta["struct:tag:json"]; !ok {
				nat.Attribute.Meta["struct:tag:json:name"] = []string{nat.Name}
			}
			tagFields(nat.Attribute, seen)
		}
	case *goaexpr.Array:
		tagFields(t.ElemType, seen)
	case *goaexpr.Map:
		tagFields(t.KeyType, seen)
		tagFields(t.ElemType, seen)
	}
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
