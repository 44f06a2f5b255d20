package model_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
)

func TestValidStructuredOutputName(t *testing.T) {
	cases := map[string]bool{
		"a":                     true,
		"weather_report":        true,
		"Report-2":              true,
		"9lives":                true,
		strings.Repeat("x", 64): true,
		"":                      false,
		strings.Repeat("x", 65): false,
		"_private":              false,
		"-dash":                 false,
		"has space":             false,
		"dot.name":              false,
		"é":                     false,
		"slash/name":            false,
	}
	for name, want := range cases {
		if got := model.ValidStructuredOutputName(name); got != want {
			t.Errorf("ValidStructuredOutputName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestStructuredOutputCheck(t *testing.T) {
	cases := []struct {
		name string
		so   *model.StructuredOutput
		want string // "" for valid
	}{
		{"valid", &model.StructuredOutput{Name: "r", Schema: json.RawMessage(`{"type":"object"}`)}, ""},
		{"empty schema object", &model.StructuredOutput{Name: "r", Schema: json.RawMessage(` {} `)}, ""},
		{"nil", nil, "nil"},
		{"bad name", &model.StructuredOutput{Name: "a b", Schema: json.RawMessage(`{}`)}, `name "a b"`},
		{"no schema", &model.StructuredOutput{Name: "r"}, "schema is missing"},
		{"array schema", &model.StructuredOutput{Name: "r", Schema: json.RawMessage(`[{}]`)}, "not an array"},
		{"boolean schema", &model.StructuredOutput{Name: "r", Schema: json.RawMessage(`true`)}, "not a boolean"},
		{"malformed", &model.StructuredOutput{Name: "r", Schema: json.RawMessage(`{"type":`)}, "malformed JSON"},
		{"does not compile", &model.StructuredOutput{Name: "r", Schema: json.RawMessage(`{"type":"text"}`)}, "invalid schema"},
		{"outside reference", &model.StructuredOutput{Name: "r", Schema: json.RawMessage(`{"$ref":"https://example.com/s.json"}`)}, "outside the schema"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.so.Check()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestStructuredOutputClone(t *testing.T) {
	so := &model.StructuredOutput{Name: "r", Description: "d", Schema: json.RawMessage(`{}`)}
	c := so.Clone()
	c.Schema[0] = '['
	if string(so.Schema) != `{}` || c.Name != "r" || c.Description != "d" {
		t.Fatalf("Clone shares the schema or lost fields: %+v", c)
	}
	if (*model.StructuredOutput)(nil).Clone() != nil {
		t.Fatal("Clone of nil is not nil")
	}
}
