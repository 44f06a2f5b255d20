package expr

import (
	"fmt"

	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"
)

// validateOpenArgs enforces the OpenArgs rules: the payload it opens is an
// object (Args absent, the empty object, or an object type), not a map,
// which accepts any key already, nor a primitive, an array or a union,
// which have no properties to open; and the tool is not bound with BindTo,
// whose adapter passes only the declared fields of Args to the method.
func (t *ToolExpr) validateOpenArgs(verr *eval.ValidationErrors) {
	if !t.OpenArgs {
		return
	}
	where := ""
	if t.OpenArgsAt.File != "" {
		where = " at " + t.OpenArgsAt.String()
	}
	if t.Binding != nil {
		verr.Add(t, "OpenArgs%s: the tool is bound with BindTo, whose adapter passes only the fields Args declares to the method: undeclared properties would be accepted and dropped; declare them in Args, or remove OpenArgs", where)
	}
	if t.Args == nil || t.Args.Type == nil || t.Args.Type == goaexpr.Empty {
		return
	}
	dt, named := t.Args.Type, ""
	if ut, ok := dt.(goaexpr.UserType); ok {
		named = fmt.Sprintf(" (type %s)", ut.Name())
	}
	switch {
	case goaexpr.AsMap(dt) != nil:
		verr.Add(t, "OpenArgs%s: Args%s is a map, which accepts any key already: remove OpenArgs", where, named)
	case goaexpr.AsObject(dt) == nil:
		verr.Add(t, "OpenArgs%s: Args%s is %s, not an object: only an object payload has properties to open; declare Args with Attribute calls, or remove OpenArgs", where, named, kindName(dt))
	}
}

// kindName names the kind of a payload that is not an object, for errors:
// "an array", "a union", "the primitive string".
func kindName(dt goaexpr.DataType) string {
	dt = underlying(dt)
	switch dt.Kind() {
	case goaexpr.ArrayKind:
		return "an array"
	case goaexpr.UnionKind:
		return "a union"
	}
	return "the primitive " + dt.Name()
}
