package strictschema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/strictschema"
)

func TestCheckAcceptsAStrictSchema(t *testing.T) {
	const schema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"R",
	"properties":{"city":{"type":"string","pattern":"^[A-Z]"},"when":{"type":["string","null"],"format":"date-time"},
	"tags":{"type":"array","items":{"$ref":"#/$defs/tag"},"minItems":1},"n":{"anyOf":[{"type":"integer","minimum":0},{"type":"null"}]}},
	"required":["city","when","tags","n"],"additionalProperties":false,
	"$defs":{"tag":{"type":"object","properties":{"k":{"enum":["a","b"]}},"required":["k"],"additionalProperties":false}}}`
	issues, err := strictschema.Check([]byte(schema))
	if err != nil || len(issues) != 0 {
		t.Fatalf("Check = %v, %v; want no issues", issues, err)
	}
}

func TestCheckListsEveryIssueWithItsPath(t *testing.T) {
	const schema = `{"type":"object","properties":{
	"a":{"type":"string","minLength":2},
	"b":{"type":"object","properties":{"c":{"type":"string","format":"uri"}}},
	"d":{"type":"array","items":true,"uniqueItems":true}},
	"required":["a","b"]}`
	issues, err := strictschema.Check([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range issues {
		got = append(got, i.String())
	}
	want := []string{
		`#: an object schema needs "additionalProperties": false`,
		`#: every property must be required (make optional ones nullable instead): "d" not in "required"`,
		`#/properties/a: keyword "minLength" is outside strict mode`,
		`#/properties/b: an object schema needs "additionalProperties": false`,
		`#/properties/b: every property must be required (make optional ones nullable instead): "c" not in "required"`,
		`#/properties/b/properties/c: format "uri" is outside strict mode`,
		`#/properties/d: keyword "uniqueItems" is outside strict mode`,
		`#/properties/d/items: a boolean or non-object subschema is outside strict mode: write it as an object schema`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckBoundsDepth(t *testing.T) {
	inner := `{"type":"string"}`
	for i := 0; i < strictschema.MaxDepth+1; i++ {
		inner = fmt.Sprintf(`{"type":"object","properties":{"x":%s},"required":["x"],"additionalProperties":false}`, inner)
	}
	issues, err := strictschema.Check([]byte(inner))
	if err != nil || len(issues) != 1 || !strings.Contains(issues[0].Problem, "nest more than") {
		t.Fatalf("Check = %v, %v; want one depth issue", issues, err)
	}
}

func TestCheckRoot(t *testing.T) {
	cases := map[string]string{
		`{"type":"object"}`:                     "",
		`{"type":"array","items":{}}`:           `type "array"`,
		`{}`:                                    "declares no type",
		`{"$ref":"#/$defs/x","$defs":{"x":{}}}`: "declares no type",
		`{"anyOf":[{"type":"object"}]}`:         "anyOf",
		`{"type":["object","null"]}`:            `type ["object","null"]`,
		`[1]`:                                   "not a JSON object",
		`{"type":"object"} {}`:                  "data after",
	}
	for schema, want := range cases {
		err := strictschema.CheckRoot([]byte(schema))
		if want == "" {
			if err != nil {
				t.Errorf("CheckRoot(%s) = %v", schema, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckRoot(%s) = %v, want an error mentioning %q", schema, err, want)
		}
	}
}
