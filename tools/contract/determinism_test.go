package contract

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools"
)

// compileRuns is how many times a determinism test compiles a declaration:
// the JSON Schema library walks maps, so an order that depends on it shows
// within a few runs.
const compileRuns = 200

// TestCompileErrorsAreDeterministic: a declaration with many independent
// problems is refused with the same message, byte for byte, every time,
// by Compile and by Check.
func TestCompileErrorsAreDeterministic(t *testing.T) {
	cases := []struct {
		name  string
		decl  ToolDeclaration
		is    error    // matched by the error
		wants []string // in the message, in this order
	}{
		{
			name: "metaschema violations in properties and $defs",
			decl: decl(`{"type":"object",
				"properties":{
					"a":{"type":"strin"},"b":{"type":5},"c":{"type":"string","pattern":"("},
					"d":{"minimum":"x"},"e":{"enum":3},"f":{"required":"x"},"g":{"items":7},
					"h":{"type":"object","properties":{"i":{"type":"nope"},"j":{"maxLength":-1}}},
					"k":{"patternProperties":{"[":{}}},"l":{"patternProperties":{"(":{}}},
					"m":{"$ref":"#/$defs/ok"},"n":{"additionalProperties":3}},
				"$defs":{"ok":{"type":"string"},"w":{"pattern":"["},"x":{"type":"bad"},"y":{"properties":4},"z":{"minItems":"2"}}}`),
			is: tools.ErrInvalidSchema,
			wants: []string{"/$defs/w/pattern", "/$defs/x/type", "/$defs/y/properties", "/$defs/z/minItems",
				"/properties/a/type", "/properties/b/type", "/properties/c/pattern", "/properties/d/minimum",
				"/properties/h/properties/i/type", "/properties/h/properties/j/maxLength",
				"/properties/k/patternProperties", "/properties/l/patternProperties", "/properties/n/additionalProperties"},
		},
		{
			name: "unresolvable references",
			decl: decl(`{"type":"object",
				"properties":{
					"a":{"$ref":"#/$defs/nope1"},"b":{"$ref":"#/$defs/nope2"},"c":{"$ref":"#/$defs/chain"},
					"d":{"$ref":"#nowhere"},"e":{"$ref":"other.json"},"f":{"items":{"$ref":"#/$defs/nope3"}}},
				"$defs":{"chain":{"properties":{"x":{"$ref":"#/$defs/nope4"},"y":{"$ref":"#/$defs/nope5"}}}}}`),
			is: tools.ErrInvalidSchema,
			// The first problem in document order ("$defs" sorts before
			// "properties", but an unused $defs entry is no problem).
			wants: []string{`json-pointer in "quiver:///schema.json#/$defs/nope1" not found`},
		},
		{
			name: "references into a definition with several problems",
			decl: decl(`{"type":"object",
				"properties":{"z":{"$ref":"#/$defs/d"},"y":{"$ref":"#/$defs/d"}},
				"$defs":{"d":{"properties":{"q":{"$ref":"#/$defs/nope2"},"p":{"$ref":"#/$defs/nope1"}}}}}`),
			is:    tools.ErrInvalidSchema,
			wants: []string{`#/$defs/nope1" not found`},
		},
		{
			name: "duplicate anchors and ids",
			decl: decl(`{"type":"object","properties":{
				"a":{"$anchor":"x"},"b":{"$anchor":"x"},"c":{"$anchor":"y"},"d":{"$anchor":"y"},
				"e":{"$id":"e.json"},"f":{"$id":"e.json"}}}`),
			is:    tools.ErrInvalidSchema,
			wants: []string{`duplicate anchor "x" in "quiver:///schema.json" at "/properties/a" and "/properties/b"`},
		},
		{
			name: "an example with many violations",
			decl: func() ToolDeclaration {
				d := decl(`{"type":"object","additionalProperties":false,
					"properties":{
						"a":{"type":"string"},"b":{"type":"integer","minimum":3},"c":{"enum":["x","y"]},
						"o":{"anyOf":[{"type":"object","properties":{"p":{"type":"string"},"q":{"type":"string"},"r":{"type":"string"}}},{"type":"string"}]},
						"n":{"type":"object","propertyNames":{"maxLength":1}},"m":{"type":"object","propertyNames":{"maxLength":2}},
						"l":{"type":"array","items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"},"j":{"type":"string"}}}}}}`)
				d.InputExample = json.RawMessage(`{"a":1,"b":1.5,"c":"z","o":{"p":1,"q":2,"r":3},"n":{"zzz":1},"m":{"zzz":1},
					"l":[{"j":1},{"j":2},{"k":3}],"extra1":1,"extra2":2,"extra3":3}`)
				return d
			}(),
			is: tools.ErrSchemaViolation,
			wants: []string{"input_example:", "a: must be a string", "b: must be an integer",
				"extra1: is not an allowed property: remove it (allowed: a, b, c, l, m, n, o)", "extra2:", "extra3:",
				"l[0].j: must be a string", "l[0].k: is required", "l[1].j:", "l[2].k: must be a string",
				`m: property name "zzz" is not allowed: must be at most 2 characters long`,
				`n: property name "zzz" is not allowed: must be at most 1 character long`,
				"o: must match at least one of the allowed alternatives: (1) p: must be a string (got number), q: must be a string (got number), r: must be a string (got number); (2) must be a string (got object)"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(c.decl)
			if !errors.Is(err, c.is) {
				t.Fatalf("Compile = %v, want an error matching %v", err, c.is)
			}
			first := err.Error()
			for i := range compileRuns {
				if _, err := Compile(c.decl); err == nil || err.Error() != first {
					t.Fatalf("Compile run %d reports\n%v\nrun 0 reported\n%s", i+1, err, first)
				}
				if err := Check(c.decl); err == nil || err.Error() != first {
					t.Fatalf("Check run %d reports\n%v\nCompile reported\n%s", i+1, err, first)
				}
			}
			rest := first
			for _, w := range c.wants {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the error lacks %q (or has it out of order):\n%s", w, first)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestCompileErrorsAreDeterministicAcrossAToolset: CompileToolset reports
// its tools' problems in declaration order, each in a fixed order.
func TestCompileErrorsAreDeterministicAcrossAToolset(t *testing.T) {
	ts := ToolsetDeclaration{Name: "docs"}
	for _, name := range []string{"c", "a", "b"} {
		d := decl(`{"type":"object","properties":{"x":{"type":"nope"},"y":{"$ref":"#/$defs/z"},"w":{"minimum":"0"}}}`)
		d.Toolset, d.Name = "", name
		ts.Tools = append(ts.Tools, d)
	}
	_, err := CompileToolset(ts)
	if err == nil {
		t.Fatal("CompileToolset accepted the toolset")
	}
	first := err.Error()
	if c, a := strings.Index(first, `"docs.c"`), strings.Index(first, `"docs.a"`); c < 0 || a < c {
		t.Fatalf("tools are not reported in declaration order:\n%s", first)
	}
	for i := range compileRuns {
		if _, err := CompileToolset(ts); err == nil || err.Error() != first {
			t.Fatalf("run %d reports\n%v\nrun 0 reported\n%s", i+1, err, first)
		}
	}
}

// decl returns a declaration of tool "docs.search" with the input schema.
func decl(schema string) ToolDeclaration {
	return ToolDeclaration{Toolset: "docs", Name: "search", Title: "Search", InputSchema: json.RawMessage(schema)}
}
