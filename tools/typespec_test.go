package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

const searchSchema = `{
	"type": "object",
	"additionalProperties": false,
	"required": ["query"],
	"properties": {
		"query": {"type": "string", "minLength": 1, "description": "What to look for"},
		"name": {"type": "string"},
		"limit": {"type": "integer", "minimum": 1, "maximum": 100},
		"mode": {"enum": ["a", "b"]},
		"ratio": {"type": "number", "exclusiveMaximum": 0.5},
		"when": {"type": "string", "format": "date-time"},
		"code": {"type": "string", "pattern": "^[a-z]+$"},
		"tags": {"type": "array", "maxItems": 2, "uniqueItems": true, "items": {"type": "string"}},
		"filters": {"type": "array", "items": {"type": "object", "required": ["op"],
			"properties": {"op": {"enum": ["eq", "ne"]}}}},
		"alt": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
		"meta": {"type": "object", "additionalProperties": {"type": "string"}}
	}
}`

func mustType(t testing.TB, schema string) TypeSpec {
	t.Helper()
	ts, err := NewTypeSpec("Search", json.RawMessage(schema))
	if err != nil {
		t.Fatalf("NewTypeSpec: %v", err)
	}
	return ts
}

func TestTypeSpecViolations(t *testing.T) {
	ts := mustType(t, searchSchema)
	cases := []struct {
		rule, data string
		want       []string
	}{
		{"a missing required field is named", `{}`, []string{"query: is required"}},
		{"a maximum shows the bound and the value", `{"query":"q","limit":500}`, []string{"limit: must be <= 100 (got 500)"}},
		{"an enum lists the allowed values", `{"query":"q","mode":"c"}`, []string{`mode: must be one of "a", "b" (got "c")`}},
		{"a wrong type names both types", `{"query":"q","name":3}`, []string{"name: must be a string (got number)"}},
		{"an integer type refuses fractions", `{"query":"q","limit":2.5}`, []string{"limit: must be an integer (got number)"}},
		{"an exclusive maximum uses <", `{"query":"q","ratio":0.75}`, []string{"ratio: must be < 0.5 (got 0.75)"}},
		{"formats are asserted", `{"query":"q","when":"yesterday"}`, []string{`when: must be a valid date-time (got "yesterday")`}},
		{"a pattern is quoted", `{"query":"q","code":"ABC"}`, []string{`code: must match the pattern "^[a-z]+$" (got "ABC")`}},
		{"a min length counts characters", `{"query":""}`, []string{"query: must be at least 1 character long (got 0)"}},
		{"array limits are counted", `{"query":"q","tags":["a","b","c"]}`, []string{"tags: must have at most 2 items (got 3)"}},
		{"duplicates are located", `{"query":"q","tags":["a","a"]}`, []string{"tags: must not contain duplicates (items 0 and 1 are equal)"}},
		{"array items are indexed", `{"query":"q","filters":[{"op":"eq"},{"op":"eq"},{"op":"gt"}]}`,
			[]string{`filters[2].op: must be one of "eq", "ne" (got "gt")`}},
		{"unknown properties list the allowed ones", `{"query":"q","extra":1}`,
			[]string{"extra: is not an allowed property: remove it (allowed: alt, code, filters, limit, meta, mode, name, query, ratio, tags, when)"}},
		{"alternatives are summarized once", `{"query":"q","alt":true}`,
			[]string{"alt: must match at least one of the allowed alternatives: (1) must be a string (got boolean); (2) must be an integer (got boolean)"}},
		{"keys that are not identifiers are bracketed", `{"query":"q","meta":{"a.b":1}}`, []string{`meta["a.b"]: must be a string (got number)`}},
		{"the root has an empty path", `[1]`, []string{"(root): must be an object (got array)"}},
		{"every violation is listed, sorted by path", `{"limit":0,"name":false,"filters":[{}],"extra":null}`, []string{
			"extra: is not an allowed property: remove it (allowed: alt, code, filters, limit, meta, mode, name, query, ratio, tags, when)",
			"filters[0].op: is required",
			"limit: must be >= 1 (got 0)",
			"name: must be a string (got boolean)",
			"query: is required",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			err := ts.Validate([]byte(tc.data))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate(%s) = %v, want *ValidationError", tc.data, err)
			}
			if !errors.Is(err, ErrSchemaViolation) {
				t.Error("ValidationError does not match ErrSchemaViolation")
			}
			if got := strings.Join(lines(ve), "\n"); got != strings.Join(tc.want, "\n") {
				t.Errorf("violations:\n%s\nwant:\n%s", got, strings.Join(tc.want, "\n"))
			}
			if ve.Error() != strings.Join(tc.want, "\n") {
				t.Errorf("Error() = %q", ve.Error())
			}
		})
	}
}

func lines(ve *ValidationError) []string {
	out := make([]string, len(ve.Violations))
	for i, v := range ve.Violations {
		out[i] = v.String()
	}
	return out
}

func TestTypeSpecViolationPaths(t *testing.T) {
	ts := mustType(t, searchSchema)
	err := ts.Validate([]byte(`{"filters":[{"op":"x"}]}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	want := []Violation{{Path: "filters[0].op", Message: `must be one of "eq", "ne" (got "x")`}, {Path: "query", Message: "is required", Missing: true}}
	if len(ve.Violations) != len(want) || ve.Violations[0] != want[0] || ve.Violations[1] != want[1] {
		t.Errorf("Violations = %+v, want %+v", ve.Violations, want)
	}
}

func TestTypeSpecInvalidJSON(t *testing.T) {
	ts := mustType(t, searchSchema)
	cases := []struct{ rule, data, want string }{
		{"a syntax error names its offset", `{"query": x}`, "at offset 10: invalid character 'x'"},
		{"truncated input names its end", `{"query":`, "at offset 9: unexpected end of input"},
		{"trailing data is refused", `{"query":"q"} {}`, "at offset 14: unexpected data after the top-level value"},
		{"empty input is refused", ``, "empty input"},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			_, err := ts.Decode([]byte(tc.data))
			if !errors.Is(err, ErrInvalidJSON) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode(%q) = %v, want ErrInvalidJSON mentioning %q", tc.data, err, tc.want)
			}
		})
	}
}

func TestTypeSpecDecodeKeepsLargeIntegersExact(t *testing.T) {
	ts := mustType(t, `{"type":"object","properties":{"id":{"type":"integer","maximum":18446744073709551615}}}`)
	v, err := ts.Decode([]byte(`{"id":12345678901234567891}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := v.(map[string]any)["id"]; n != json.Number("12345678901234567891") {
		t.Errorf("id = %#v, want json.Number(\"12345678901234567891\")", n)
	}
	err = ts.Validate([]byte(`{"id":18446744073709551616}`))
	if err == nil || !strings.Contains(err.Error(), "must be <= 18446744073709551615 (got 18446744073709551616)") {
		t.Errorf("Validate over the maximum = %v", err)
	}
}

func TestTypeSpecSchemaRules(t *testing.T) {
	cases := []struct{ rule, schema, want string }{
		{"an empty schema is refused", ``, "the schema is empty"},
		{"a malformed schema names its offset", `{"type":}`, "at offset 8"},
		{"a schema breaking the metaschema is refused", `{"type":"nope"}`, "metaschema"},
		{"files are never loaded", `{"$ref":"file:///etc/passwd"}`, "outside the schema"},
		{"URLs are never loaded", `{"$ref":"https://example.com/s.json"}`, "outside the schema"},
		{"invalid patterns are refused", `{"pattern":"("}`, "invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			_, err := NewTypeSpec("", json.RawMessage(tc.schema))
			if !errors.Is(err, ErrInvalidSchema) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewTypeSpec(%s) = %v, want ErrInvalidSchema mentioning %q", tc.schema, err, tc.want)
			}
		})
	}
	t.Run("local references compile", func(t *testing.T) {
		ts := mustType(t, `{"$ref":"#/$defs/p","$defs":{"p":{"type":"object","properties":{"cursor":{"type":"string"}}}}}`)
		if p := ts.Property("cursor"); !p.Declared || p.Types[0] != "string" {
			t.Errorf("Property(cursor) through $ref = %+v", p)
		}
		if err := ts.Validate([]byte(`{"cursor":1}`)); err == nil || !strings.Contains(err.Error(), "cursor: must be a string") {
			t.Errorf("Validate = %v", err)
		}
	})
	t.Run("older drafts are honored", func(t *testing.T) {
		ts := mustType(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","exclusiveMaximum":3}}}`)
		if err := ts.Validate([]byte(`{"n":3}`)); err == nil {
			t.Error("draft-07 exclusiveMaximum not applied")
		}
	})
}

func TestZeroAndUncompiledTypeSpec(t *testing.T) {
	var zero TypeSpec
	if !zero.IsZero() || !zero.Compiled() {
		t.Error("zero TypeSpec should be zero and need no validator")
	}
	if v, err := zero.Decode([]byte(`[1,"x"]`)); err != nil || len(v.([]any)) != 2 {
		t.Errorf("zero Decode = %v, %v", v, err)
	}
	if err := zero.Validate([]byte(`{`)); !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("zero Validate of bad JSON = %v", err)
	}
	literal := TypeSpec{Schema: json.RawMessage(`{"type":"string"}`)}
	if literal.Compiled() {
		t.Error("a literal TypeSpec with a schema claims to be compiled")
	}
	if err := literal.Validate([]byte(`"x"`)); !errors.Is(err, ErrNotCompiled) {
		t.Errorf("literal Validate = %v, want ErrNotCompiled", err)
	}
}

func TestWithExample(t *testing.T) {
	ts := mustType(t, `{"type":"object","example":{"q":"root"},"examples":[{"q":"x"}],"properties":{"q":{"type":"string","example":"nested"}}}`)
	withEx, err := ts.WithExample(json.RawMessage(`{"q":"tokyo"}`))
	if err != nil {
		t.Fatal(err)
	}
	ex := withEx.Example
	if string(ex.Raw) != `{"q":"tokyo"}` || ex.Value.(map[string]any)["q"] != "tokyo" {
		t.Errorf("example = %s / %#v", ex.Raw, ex.Value)
	}
	if want := `{"type":"object","properties":{"q":{"type":"string","example":"nested"}}}`; string(ex.SchemaWithoutExample) != want {
		t.Errorf("SchemaWithoutExample = %s, want %s (only the root example removed, order kept)", ex.SchemaWithoutExample, want)
	}
	if ts.Example != nil {
		t.Error("WithExample changed its receiver")
	}
	if _, err := ts.WithExample(json.RawMessage(`{"q":1}`)); !errors.Is(err, ErrSchemaViolation) {
		t.Errorf("an example breaking the schema = %v, want ErrSchemaViolation", err)
	}
}

func TestTypeSpecConcurrentValidation(t *testing.T) {
	ts := mustType(t, searchSchema)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.Clone()
			for range 50 {
				if i%2 == 0 {
					if err := c.Validate([]byte(`{"query":"q","limit":5}`)); err != nil {
						t.Error(err)
					}
				} else if err := c.Validate([]byte(`{"limit":500}`)); err == nil {
					t.Error("invalid payload accepted")
				}
			}
		}()
	}
	wg.Wait()
}

func TestMissingOnlyReportsAbsentRequiredFields(t *testing.T) {
	ts := mustType(t, searchSchema)
	var ve *ValidationError
	if err := ts.Validate([]byte(`{}`)); !errors.As(err, &ve) {
		t.Fatal(err)
	}
	if paths, ok := ve.MissingOnly(); !ok || len(paths) != 1 || paths[0] != "query" {
		t.Errorf("MissingOnly() = %v, %v; want [query], true", paths, ok)
	}
	if err := ts.Validate([]byte(`{"filters":[{"op":"x"}]}`)); !errors.As(err, &ve) {
		t.Fatal(err)
	}
	if _, ok := ve.MissingOnly(); ok {
		t.Error("MissingOnly() = true with a non-missing violation")
	}
}
