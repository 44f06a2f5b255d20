package tools

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func FuzzTypeSpecDecode(f *testing.F) {
	f.Add(searchSchema, `{"limit":500,"filters":[{"op":"x"}]}`)
	f.Add(`{"anyOf":[{"type":"string"},{"oneOf":[{"minimum":1},{"maximum":3}]}]}`, `2`)
	f.Add(`{"type":"object","propertyNames":{"pattern":"^a"},"dependentRequired":{"a":["b"]}}`, `{"a":1,"zz":2}`)
	f.Add(`{"$defs":{"n":{"type":"array","items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"}`, `[[[[1]]]]`)
	f.Add(`{"contains":{"const":1},"minContains":2,"prefixItems":[{"type":"null"}]}`, `[1,2]`)
	f.Add(`{"not":{"type":"string"},"if":{"type":"number"},"then":{"multipleOf":0.1}}`, `0.35`)
	f.Add(`true`, `{"a":`)
	f.Add(`{"type":"object","unevaluatedProperties":false,"properties":{"é.x":{"format":"email"}}}`, `{"é.x":"no","y":1}`)
	f.Fuzz(func(t *testing.T, schema, data string) {
		ts, err := NewTypeSpec("F", json.RawMessage(schema))
		if err != nil {
			if !errors.Is(err, ErrInvalidSchema) {
				t.Fatalf("NewTypeSpec error does not wrap ErrInvalidSchema: %v", err)
			}
			return
		}
		v1, err1 := ts.Decode([]byte(data))
		_, err2 := ts.Decode([]byte(data))
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("Decode is not deterministic: %v vs %v", err1, err2)
		}
		if err1 == nil {
			if _, err := json.Marshal(v1); err != nil {
				t.Fatalf("decoded value does not re-encode: %v", err)
			}
			return
		}
		var ve *ValidationError
		switch {
		case errors.As(err1, &ve):
			if len(ve.Violations) == 0 {
				t.Fatal("ValidationError without violations")
			}
			if !slices.IsSortedFunc(ve.Violations, func(a, b Violation) int {
				return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
			}) {
				t.Fatalf("violations not sorted: %v", ve.Violations)
			}
		case errors.Is(err1, ErrInvalidJSON):
			if json.Valid([]byte(data)) {
				t.Fatalf("valid JSON %q reported invalid: %v", data, err1)
			}
		default:
			t.Fatalf("unexpected error kind: %v", err1)
		}
	})
}
