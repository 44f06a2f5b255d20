package codegen

import (
	"fmt"

	goacodegen "goa.design/goa/v3/codegen"
	goaexpr "goa.design/goa/v3/expr"
)

// convertFields returns the statements assigning the fields of the target
// object tgtVar from those of the source object srcVar, matched by design
// name. src and tgt are object attributes; useDefault says whether the Go
// type of each side keeps fields with a default value out of pointers (Goa
// service types do, toolset types do not).
//
// The rules, checked at generation time:
//   - a field is converted when both sides declare it with the same type, a
//     primitive or an array or map of primitives (user types, nested objects
//     and unions are refused: their Go types differ between the toolset and
//     the service packages);
//   - a value is copied into a pointer by address, a pointer into a value
//     when set, else the target's default; an optional source cannot fill a
//     required target field without a default;
//   - a required target field the source lacks is refused; an optional one
//     is left unset;
//   - when strict (tool Args to method payload), a source field the target
//     lacks is refused, since the model's argument would be dropped; method
//     result fields the tool's Return lacks are left out.
func convertFields(src, tgt *goaexpr.AttributeExpr, srcUseDefault, tgtUseDefault bool, srcVar, tgtVar, srcWhat, tgtWhat string, strict bool) ([]string, error) {
	srcObj, tgtObj := goaexpr.AsObject(src.Type), goaexpr.AsObject(tgt.Type)
	if strict {
		for _, nat := range *srcObj {
			if tgtObj.Attribute(nat.Name) == nil {
				return nil, fmt.Errorf("field %q of %s is not a field of %s: the value would be dropped", nat.Name, srcWhat, tgtWhat)
			}
		}
	}
	var code []string
	for _, nat := range *tgtObj {
		name, tf := nat.Name, nat.Attribute
		sf := srcObj.Attribute(name)
		if sf == nil {
			if tgt.IsRequired(name) && !tgt.HasDefaultValue(name) {
				return nil, fmt.Errorf("field %q is required by %s but %s lacks it", name, tgtWhat, srcWhat)
			}
			continue
		}
		if !plainType(sf.Type) || !plainType(tf.Type) {
			return nil, fmt.Errorf("field %q: only primitives and arrays or maps of primitives are converted, not %s", name, typeLabel(sf.Type))
		}
		if !sameType(sf.Type, tf.Type) {
			return nil, fmt.Errorf("field %q is %s in %s but %s in %s", name, typeLabel(sf.Type), srcWhat, typeLabel(tf.Type), tgtWhat)
		}
		s := srcVar + "." + goacodegen.GoifyAtt(sf, name, true)
		t := tgtVar + "." + goacodegen.GoifyAtt(tf, name, true)
		srcPtr, tgtPtr := src.IsPrimitivePointer(name, srcUseDefault), tgt.IsPrimitivePointer(name, tgtUseDefault)
		switch {
		case srcPtr == tgtPtr:
			code = append(code, fmt.Sprintf("%s = %s", t, s))
		case tgtPtr:
			code = append(code, fmt.Sprintf("%s = &%s", t, s))
		case tgtUseDefault && tgt.HasDefaultValue(name):
			code = append(code, fmt.Sprintf("if %s != nil {\n\t%s = *%s\n} else {\n\t%s = %#v\n}", s, t, s, t, tf.DefaultValue))
		default:
			return nil, fmt.Errorf("field %q is optional in %s but required in %s", name, srcWhat, tgtWhat)
		}
	}
	return code, nil
}

// plainType reports whether dt has the same Go type in every package: a
// primitive, or an array or map of such.
func plainType(dt goaexpr.DataType) bool {
	switch t := dt.(type) {
	case goaexpr.Primitive:
		return true
	case *goaexpr.Array:
		return plainType(t.ElemType.Type)
	case *goaexpr.Map:
		return plainType(t.KeyType.Type) && plainType(t.ElemType.Type)
	}
	return false
}

// sameType reports whether two plain types are the same.
func sameType(a, b goaexpr.DataType) bool {
	switch at := a.(type) {
	case goaexpr.Primitive:
		bt, ok := b.(goaexpr.Primitive)
		return ok && at.Kind() == bt.Kind()
	case *goaexpr.Array:
		bt, ok := b.(*goaexpr.Array)
		return ok && sameType(at.ElemType.Type, bt.ElemType.Type)
	case *goaexpr.Map:
		bt, ok := b.(*goaexpr.Map)
		return ok && sameType(at.KeyType.Type, bt.KeyType.Type) && sameType(at.ElemType.Type, bt.ElemType.Type)
	}
	return false
}

// typeLabel names a design type in error messages.
func typeLabel(dt goaexpr.DataType) string {
	if ut, ok := dt.(goaexpr.UserType); ok {
		return "user type " + ut.Name()
	}
	return dt.Name()
}
