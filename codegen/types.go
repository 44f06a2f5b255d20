package codegen

import (
	"fmt"
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
	// Methods are the type's methods (a union's), or "".
	Methods string
}

// typeGen generates the Go types of one toolset package with Goa's type
// generation. It works on copies of the design's attributes, tagged with
// their JSON names, so the design itself is never modified.
type typeGen struct {
	scope *goacodegen.NameScope
	defs  []typeDef
	// done records the user types already declared, by Go name.
	done map[string]bool
	// unions is true once a union type is declared: its methods need
	// encoding/json.
	unions bool
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
	case *goaexpr.Union:
		name := g.scope.GoTypeName(att)
		if !g.done[name] {
			g.done[name] = true
			g.unions = true
			g.defs = append(g.defs, g.unionDef(name, t))
		}
		for _, nat := range t.Values {
			g.userTypes(nat.Attribute, seen)
		}
	}
}

// unionDef declares a union (OneOf) as Goa's service packages do: a
// sum-type struct whose Kind names the set branch, with As<Branch> and
// Set<Branch> (what Goa's GoTransform calls), encoded as the tool schemas
// describe it, {"<type key>": "<branch>", "<value key>": <value>}. The zero
// union (no branch set) is zero for omitzero and encodes as null.
func (g *typeGen) unionDef(name string, u *goaexpr.Union) typeDef {
	var def, m strings.Builder
	def.WriteString("struct {\n\tkind string\n")
	type branch struct{ name, field, typ string }
	var bs []branch
	for _, nat := range u.Values {
		b := branch{name: nat.Name, field: goacodegen.Goify(nat.Name, true), typ: g.scope.GoFullTypeRef(nat.Attribute, "")}
		bs = append(bs, b)
		fmt.Fprintf(&def, "\t%s %s\n", b.field, b.typ)
	}
	def.WriteString("}")
	fmt.Fprintf(&m, "\n// Kind returns the name of the branch set, \"\" when none is.\nfunc (u %s) Kind() string { return u.kind }\n", name)
	fmt.Fprintf(&m, "\n// IsZero reports whether no branch is set.\nfunc (u %s) IsZero() bool { return u.kind == \"\" }\n", name)
	for _, b := range bs {
		fmt.Fprintf(&m, "\n// As%[2]s returns the %[3]s branch, if set.\nfunc (u %[1]s) As%[2]s() (_ %[4]s, ok bool) {\n\tif u.kind != %[3]q {\n\t\treturn\n\t}\n\treturn u.%[2]s, true\n}\n", name, b.field, b.name, b.typ)
		fmt.Fprintf(&m, "\n// Set%[2]s sets the %[3]s branch.\nfunc (u *%[1]s) Set%[2]s(v %[4]s) {\n\t*u = %[1]s{kind: %[3]q, %[2]s: v}\n}\n", name, b.field, b.name, b.typ)
	}
	tk, vk := u.GetTypeKey(), u.GetValueKey()
	fmt.Fprintf(&m, "\n// MarshalJSON encodes the union as {%q: branch, %q: value}, null when no\n// branch is set.\nfunc (u %s) MarshalJSON() ([]byte, error) {\n\tvar value any\n\tswitch u.kind {\n\tcase \"\":\n\t\treturn []byte(\"null\"), nil\n", tk, vk, name)
	for _, b := range bs {
		fmt.Fprintf(&m, "\tcase %q:\n\t\tvalue = u.%s\n", b.name, b.field)
	}
	fmt.Fprintf(&m, "\t}\n\treturn json.Marshal(struct {\n\t\tType  string `json:%q`\n\t\tValue any    `json:%q`\n\t}{u.kind, value})\n}\n", tk, vk)
	fmt.Fprintf(&m, "\n// UnmarshalJSON decodes the union from {%q: branch, %q: value}.\nfunc (u *%s) UnmarshalJSON(data []byte) error {\n\tvar raw struct {\n\t\tType  string          `json:%q`\n\t\tValue json.RawMessage `json:%q`\n\t}\n\tif err := json.Unmarshal(data, &raw); err != nil {\n\t\treturn err\n\t}\n\tswitch raw.Type {\n", tk, vk, name, tk, vk)
	for _, b := range bs {
		fmt.Fprintf(&m, "\tcase %q:\n\t\tvar v %s\n\t\tif err := json.Unmarshal(raw.Value, &v); err != nil {\n\t\t\treturn err\n\t\t}\n\t\tu.Set%s(v)\n\t\treturn nil\n", b.name, b.typ, b.field)
	}
	fmt.Fprintf(&m, "\t}\n\treturn fmt.Errorf(\"%s: unknown %s %%q\", raw.Type)\n}\n", name, tk)
	return typeDef{Name: name, Comment: name + " is a union (OneOf) of the design: one of its branches is set.", Def: def.String(), Methods: m.String()}
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
				if _, isUnion := nat.Attribute.Type.(*goaexpr.Union); isUnion {
					// A union field is a struct: omitzero leaves out an unset one.
					nat.Attribute.Meta["struct:tag:json"] = []string{nat.Name + ",omitzero"}
				} else {
					nat.Attribute.Meta["struct:tag:json:name"] = []string{nat.Name}
				}
			}
			tagFields(nat.Attribute, seen)
		}
	case *goaexpr.Array:
		tagFields(t.ElemType, seen)
	case *goaexpr.Map:
		tagFields(t.KeyType, seen)
		tagFields(t.ElemType, seen)
	case *goaexpr.Union:
		for _, nat := range t.Values {
			tagFields(nat.Attribute, seen)
		}
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
