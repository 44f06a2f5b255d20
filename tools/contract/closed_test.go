package contract

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools"
)

// searchDecl declares tool "docs.search" with the given input schema.
func searchDecl(input string, inject ...string) ToolDeclaration {
	return ToolDeclaration{Toolset: "docs", Name: "search", Title: "Search", InputSchema: json.RawMessage(input), Inject: inject}
}

// mustCompile compiles d, failing the test on error.
func mustCompile(t *testing.T, d ToolDeclaration) tools.ToolSpec {
	t.Helper()
	spec, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// rootKeyword returns the value of a root keyword of schema, "" if absent.
func rootKeyword(t *testing.T, schema json.RawMessage, key string) string {
	t.Helper()
	var root map[string]json.RawMessage
	if err := json.Unmarshal(schema, &root); err != nil {
		t.Fatal(err)
	}
	return string(root[key])
}

// wantPayload checks that spec's payload accepts or refuses each payload.
func wantPayload(t *testing.T, spec tools.ToolSpec, accept, refuse []string) {
	t.Helper()
	for _, p := range accept {
		if err := spec.Payload.Validate([]byte(p)); err != nil {
			t.Errorf("payload %s refused: %v", p, err)
		}
	}
	for _, p := range refuse {
		if err := spec.Payload.Validate([]byte(p)); !errors.Is(err, tools.ErrSchemaViolation) {
			t.Errorf("payload %s: err = %v, want a schema violation", p, err)
		}
	}
}

func TestCompileClosesTheRootByDefault(t *testing.T) {
	spec := mustCompile(t, searchDecl(`{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}`))
	if got := rootKeyword(t, spec.Payload.Schema, "additionalProperties"); got != "false" {
		t.Errorf("additionalProperties = %q, want false", got)
	}
	wantPayload(t, spec, []string{`{"q":"x"}`}, []string{`{"q":"x","extra":1}`, `{"q":"x","Q":"y"}`})

	t.Run("injected fields cannot be sent in any spelling", func(t *testing.T) {
		spec := mustCompile(t, searchDecl(`{"type":"object","required":["q","user_id"],"properties":{"q":{"type":"string"},"user_id":{"type":"string"}}}`, "user_id"))
		wantPayload(t, spec, []string{`{"q":"x"}`}, []string{`{"q":"x","user_id":"u"}`, `{"q":"x","uſer_id":"u"}`, `{"q":"x","USER_ID":"u"}`})
	})
	t.Run("nested objects stay as declared", func(t *testing.T) {
		spec := mustCompile(t, searchDecl(`{"type":"object","properties":{"filter":{"type":"object","properties":{"a":{"type":"string"}}}}}`))
		wantPayload(t, spec, []string{`{"filter":{"a":"x","b":1}}`}, []string{`{"filter":{},"extra":1}`})
	})
	t.Run("subschemas of the root are seen through unevaluatedProperties", func(t *testing.T) {
		spec := mustCompile(t, searchDecl(`{"type":"object","allOf":[{"required":["q"],"properties":{"q":{"type":"string"}}}]}`))
		if got := rootKeyword(t, spec.Payload.Schema, "unevaluatedProperties"); got != "false" {
			t.Errorf("unevaluatedProperties = %q, want false", got)
		}
		if got := rootKeyword(t, spec.Payload.Schema, "additionalProperties"); got != "" {
			t.Errorf("additionalProperties = %s: it would refuse the properties allOf declares", got)
		}
		wantPayload(t, spec, []string{`{"q":"x"}`}, []string{`{"q":"x","extra":1}`})
	})
	t.Run("a draft without unevaluatedProperties must choose", func(t *testing.T) {
		_, err := Compile(searchDecl(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","allOf":[{"properties":{"q":{"type":"string"}}}]}`))
		if !errors.Is(err, ErrInvalidDeclaration) || !strings.Contains(err.Error(), `the root combines subschemas (allOf)`) ||
			!strings.Contains(err.Error(), `say "additionalProperties" at the root`) {
			t.Errorf("Compile = %v, want a problem asking for additionalProperties", err)
		}
	})
}

func TestCompileKeepsWhatTheDeclarationSays(t *testing.T) {
	cases := []struct {
		rule           string
		input          string
		accept, refuse []string
	}{
		{"additionalProperties true keeps the root open",
			`{"type":"object","additionalProperties":true,"properties":{"q":{"type":"string"}}}`,
			[]string{`{"q":"x","extra":1}`}, nil},
		{"an additionalProperties schema is kept",
			`{"type":"object","additionalProperties":{"type":"integer"},"properties":{"q":{"type":"string"}}}`,
			[]string{`{"q":"x","extra":1}`}, []string{`{"q":"x","extra":"one"}`}},
		{"additionalProperties false is kept",
			`{"type":"object","additionalProperties":false,"properties":{"q":{"type":"string"}}}`,
			[]string{`{"q":"x"}`}, []string{`{"q":"x","extra":1}`}},
		{"unevaluatedProperties true keeps the root open",
			`{"type":"object","unevaluatedProperties":true,"properties":{"q":{"type":"string"}}}`,
			[]string{`{"q":"x","extra":1}`}, nil},
		{"a draft-07 root combining subschemas may say additionalProperties",
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":true,"allOf":[{"properties":{"q":{"type":"string"}}}]}`,
			[]string{`{"q":"x","extra":1}`}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			spec := mustCompile(t, searchDecl(tc.input))
			if string(spec.Payload.Schema) != tc.input {
				t.Errorf("payload schema = %s, want the declared one", spec.Payload.Schema)
			}
			wantPayload(t, spec, tc.accept, tc.refuse)
		})
	}
}

func TestFingerprintHashesTheDeclarationAsWritten(t *testing.T) {
	implicit := searchDecl(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	explicit := searchDecl(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`)
	a, err := FingerprintTool(implicit)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FingerprintTool(explicit)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Error("the default closing is part of the hashed form; Fingerprint documents the declaration as written")
	}
	if got, want := string(mustCompile(t, implicit).Payload.Schema), string(mustCompile(t, explicit).Payload.Schema); got != want {
		t.Errorf("the two declarations compile differently:\n%s\n%s", got, want)
	}
}
