package tools

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// validateRuns is how many times a determinism test validates: the JSON
// Schema library walks maps, so an order that depends on it shows within a
// few runs.
const validateRuns = 200

// TestValidateErrorsAreDeterministic: a payload with many violations, some
// summarized (alternatives, property names), is refused with the same
// message, byte for byte, every time, each violation at its own path.
func TestValidateErrorsAreDeterministic(t *testing.T) {
	spec := MustTypeSpec("", json.RawMessage(`{"type":"object","additionalProperties":false,
		"required":["id"],
		"dependentRequired":{"a":["a1","a2"],"b":["b1"]},
		"properties":{
			"id":{"type":"string"},"a":{"type":"string"},"b":{"type":"string","pattern":"^b"},
			"c":{"enum":["x","y"]},"d":{"type":"integer","minimum":3},
			"o":{"anyOf":[
				{"type":"object","properties":{"p":{"type":"string"},"q":{"type":"string"},"r":{"type":"string"},"s":{"type":"string"}}},
				{"type":"string"}]},
			"one":{"oneOf":[{"type":"object","required":["x","y","z"]},{"type":"array"}]},
			"n":{"type":"object","propertyNames":{"maxLength":1}},
			"m":{"type":"object","propertyNames":{"anyOf":[{"pattern":"^a"},{"maxLength":2}]}},
			"plain":{"type":"object"},
			"deep":{"type":"object","properties":{"n":{"type":"object","propertyNames":{"maxLength":1}}}},
			"list":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"k":{"type":"string"}}}}}}`))
	payload := []byte(`{"a":1,"b":"x","c":"z","d":1.5,
		"o":{"p":1,"q":2,"r":3,"s":4},"one":{"w":1},
		"n":{"zzz":1},"m":{"zzz":1},"plain":{"zzz":1},"deep":{"n":{"zzz":1}},
		"list":[{"k":1,"u":1,"v":2,"w":3},{"x":1,"y":2}],
		"extra1":1,"extra2":2,"extra3":3}`)
	err := spec.Validate(payload)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate = %v, want a *ValidationError", err)
	}
	first := err.Error()
	for i := range validateRuns {
		if err := spec.Validate(payload); err == nil || err.Error() != first {
			t.Fatalf("run %d reports\n%v\nrun 0 reported\n%s", i+1, err, first)
		}
	}
	rest := first
	for _, w := range []string{
		"a: must be a string (got number)",
		"a1: is required when \"a\" is present", "a2: is required when \"a\" is present",
		`b: must match the pattern "^b" (got "x")`,
		`b1: is required when "b" is present`,
		`c: must be one of "x", "y" (got "z")`,
		"d: must be an integer (got number)",
		`deep.n: property name "zzz" is not allowed: must be at most 1 character long (got 3)`,
		"extra1: is not an allowed property", "extra2: is not an allowed property", "extra3: is not an allowed property",
		"id: is required",
		"list[0].k: must be a string (got number)",
		"list[0].u: is not an allowed property: remove it (allowed: k)", "list[0].v:", "list[0].w:",
		"list[1].x:", "list[1].y:",
		`m: property name "zzz" is not allowed: must match at least one of the allowed alternatives: (1) must match the pattern "^a" (got "zzz"); (2) must be at most 2 characters long (got 3)`,
		`n: property name "zzz" is not allowed: must be at most 1 character long (got 3)`,
		"o: must match at least one of the allowed alternatives: (1) p: must be a string (got number), q: must be a string (got number), r: must be a string (got number), s: must be a string (got number); (2) must be a string (got object)",
		"one: must match exactly one of the allowed alternatives: (1) x: is required, y: is required, z: is required; (2) must be an array (got object)",
	} {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the error lacks %q (or has it out of order):\n%s", w, first)
		}
		rest = rest[i+len(w):]
	}
}

// TestNewTypeSpecErrorsAreDeterministic: a schema that does not compile is
// refused with the same message every time: the metaschema's violations
// sorted by location, or the first of several problems that stop
// compilation, in document order.
func TestNewTypeSpecErrorsAreDeterministic(t *testing.T) {
	for name, c := range map[string]struct{ schema, want string }{
		"metaschema": {
			`{"properties":{"b":{"type":5},"a":{"type":"x"},"c":{"patternProperties":{"[":{}}},"d":{"patternProperties":{"(":{}}}},"$defs":{"z":{"minimum":"1"}}}`,
			"- at '/$defs/z': 'allOf' failed",
		},
		"references": {
			`{"properties":{"b":{"$ref":"#/$defs/nope2"},"a":{"$ref":"#/$defs/nope1"},"c":{"$ref":"#/x-other"}},"x-other":{"type":5}}`,
			`json-pointer in "quiver:///schema.json#/$defs/nope1" not found`,
		},
		"anchors": {
			`{"properties":{"d":{"$anchor":"y"},"c":{"$anchor":"y"},"b":{"$anchor":"x"},"a":{"$anchor":"x"}}}`,
			`duplicate anchor "x" in "quiver:///schema.json" at "/properties/a" and "/properties/b"`,
		},
		"ids": {
			`{"properties":{"b":{"$id":"x.json"},"a":{"$id":"x.json"},"d":{"$id":"y.json"},"c":{"$id":"y.json"}}}`,
			`duplicate id "quiver:///x.json" in "quiver:///schema.json" at "/properties/a" and "/properties/b"`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewTypeSpec("", json.RawMessage(c.schema))
			if !errors.Is(err, ErrInvalidSchema) {
				t.Fatalf("NewTypeSpec = %v, want ErrInvalidSchema", err)
			}
			first := err.Error()
			if !strings.Contains(first, c.want) {
				t.Errorf("the error lacks %q:\n%s", c.want, first)
			}
			for i := range validateRuns {
				if _, err := NewTypeSpec("", json.RawMessage(c.schema)); err == nil || err.Error() != first {
					t.Fatalf("run %d reports\n%v\nrun 0 reported\n%s", i+1, err, first)
				}
			}
		})
	}
}

// TestMinimalSites: the search keeps the first sites, in order, that fail
// together, and within its budget returns a set known to fail.
func TestMinimalSites(t *testing.T) {
	set := func(n int, idx ...int) []bool {
		on := make([]bool, n)
		for _, i := range idx {
			on[i] = true
		}
		return on
	}
	for name, c := range map[string]struct {
		fails  func(on []bool) bool
		budget int
		want   []bool
	}{
		"either of two":  {func(on []bool) bool { return on[3] || on[7] }, 64, set(10, 3)},
		"two together":   {func(on []bool) bool { return on[2] && on[8] }, 64, set(10, 2, 8)},
		"always":         {func(on []bool) bool { return true }, 64, set(10)},
		"out of budget":  {func(on []bool) bool { return on[2] && on[8] }, 5, set(10, 0, 1, 2, 3, 4, 5, 6, 7, 8)},
		"no budget left": {func(on []bool) bool { return on[2] && on[8] }, 0, set(10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)},
	} {
		budget := c.budget
		got := minimalSites(set(10, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9), c.fails, &budget)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: minimalSites = %v, want %v", name, got, c.want)
		}
		if !c.fails(got) {
			t.Errorf("%s: %v does not fail", name, got)
		}
	}
}
