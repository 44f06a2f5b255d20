package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/completion"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
)

const verdictSchema = `{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved","reason"],"additionalProperties":false}`

type verdict struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason"`
}

func verdictCompletion(schema, description string) *completion.Completion[verdict] {
	return completion.New(completion.Definition{Name: "review_verdict", Description: description, Schema: json.RawMessage(schema)},
		func(raw []byte) (verdict, error) {
			var v verdict
			err := json.Unmarshal(raw, &v)
			return v, err
		})
}

func verdictRequest() *model.Request {
	return &model.Request{Messages: []model.Message{model.UserMessage("Review the change.")}, MaxTokens: 300}
}

func answers(text, stop string) providerfake.Answer {
	return ok(providerfake.AnthropicMessage("msg_1", stop, providerfake.Usage{Input: 20, Output: 10}, providerfake.AnthropicText(text)))
}

// sdkOutputConfig is what the SDK's own types write for schema.
func sdkOutputConfig(t *testing.T, schema string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: m}})
	if err != nil {
		t.Fatal(err)
	}
	return canonicalJSON(t, raw)
}

func canonicalJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestStructuredOutputSendsOutputConfig(t *testing.T) {
	p := newProvider(t, answers(`{"approved":true,"reason":"tests pass"}`, "end_turn"))
	v, err := verdictCompletion(verdictSchema, "").Complete(context.Background(), p.client(), verdictRequest())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if v != (verdict{Approved: true, Reason: "tests pass"}) {
		t.Fatalf("value = %+v", v)
	}
	got := canonicalJSON(t, field(t, p.Request(0).Body, "output_config"))
	if want := sdkOutputConfig(t, verdictSchema); got != want {
		t.Fatalf("output_config = %s\nwant %s", got, want)
	}
	if !strings.Contains(string(p.Request(0).Body), `"schema":`+verdictSchema) {
		t.Fatalf("a schema the API represents was not sent as declared: %s", p.Request(0).Body)
	}
}

func TestStructuredOutputNormalizesWhatTheAPIDoesNotEnforce(t *testing.T) {
	const declared = `{"type":"object","properties":{` +
		`"reason":{"type":"string","minLength":3,"maxLength":200,"description":"Why."},` +
		`"score":{"type":"integer","minimum":0,"maximum":10,"examples":[3]},` +
		`"tags":{"type":"array","items":{"type":"string","format":"regex"},"minItems":2,"uniqueItems":true},` +
		`"kind":{"oneOf":[{"const":"a"},{"const":"b"}]},` +
		`"meta":{"type":"object","properties":{"by":{"type":"string"}}}},` +
		`"required":["reason","score"]}`
	const sent = `{"type":"object","properties":{` +
		`"reason":{"type":"string","description":"Why.\n\nConstraints: minLength 3, maxLength 200."},` +
		`"score":{"type":"integer","description":"Constraints: minimum 0, maximum 10."},` +
		`"tags":{"type":"array","items":{"type":"string","description":"Constraints: format regex."},"description":"Constraints: minItems 2, uniqueItems true."},` +
		`"kind":{"anyOf":[{"const":"a"},{"const":"b"}],"description":"Constraints: exactly one alternative of anyOf."},` +
		`"meta":{"type":"object","properties":{"by":{"type":"string"}},"additionalProperties":false}},` +
		`"required":["reason","score"],"additionalProperties":false,"description":"The review's verdict."}`
	p := newProvider(t, answers(`{"reason":"ok"}`, "end_turn"))
	_, err := verdictCompletion(declared, "The review's verdict.").Complete(context.Background(), p.client(), verdictRequest())
	// The declared schema stays the contract: score is required.
	var ce *planner.OutputContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "score: is required") || !strings.Contains(err.Error(), "reason:") {
		t.Fatalf("err = %v, want a contract error from the declared schema (score required, reason too short)", err)
	}
	if got, want := canonicalJSON(t, field(t, p.Request(0).Body, "output_config")), sdkOutputConfig(t, sent); got != want {
		t.Fatalf("output_config = %s\nwant %s", got, want)
	}
}

func TestStructuredOutputInvalidAnswerIsAContractErrorAfterOneRequest(t *testing.T) {
	for name, a := range map[string]providerfake.Answer{
		"schema violation":  answers(`{"approved":"yes","reason":"r"}`, "end_turn"),
		"cut at max tokens": answers(`{"approved":true,"rea`, "max_tokens"),
	} {
		t.Run(name, func(t *testing.T) {
			p := newProvider(t, a, answers(`{"approved":true,"reason":"r"}`, "end_turn"))
			_, err := verdictCompletion(verdictSchema, "").Complete(context.Background(), p.client(), verdictRequest())
			var ce *planner.OutputContractError
			if !errors.As(err, &ce) || ce.Recoverable() {
				t.Fatalf("err = %v, want a non-recoverable *planner.OutputContractError", err)
			}
			if n := len(p.Requests()); n != 1 {
				t.Fatalf("%d requests, want exactly 1", n)
			}
		})
	}
}

func TestStructuredOutputRefusesWhatCannotBeRepresented(t *testing.T) {
	cases := []struct {
		name, schema, path string
	}{
		{"map", `{"type":"object","properties":{"counts":{"type":"object","additionalProperties":{"type":"integer"}}}}`, "#/properties/counts"},
		{"recursion through $defs", `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`, "#/$defs/node"},
		{"recursion to the root", `{"type":"object","properties":{"next":{"$ref":"#"}}}`, "#"},
		{"not", `{"type":"object","properties":{"a":{"not":{"type":"null"}}}}`, "#/properties/a"},
		{"tuple", `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"number"}]}}}`, "#/properties/p"},
		{"boolean subschema", `{"type":"object","properties":{"any":true}}`, "#/properties/any"},
		{"object enum", `{"type":"object","properties":{"e":{"enum":[{"a":1}]}}}`, "#/properties/e/enum/0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t)
			_, err := verdictCompletion(tc.schema, "").Complete(context.Background(), p.client(), verdictRequest())
			if !errors.Is(err, model.ErrStructuredOutputUnsupported) || !strings.Contains(err.Error(), tc.path+":") {
				t.Fatalf("err = %v, want ErrStructuredOutputUnsupported naming %s", err, tc.path)
			}
			if n := len(p.Requests()); n != 0 {
				t.Fatalf("%d requests, want 0", n)
			}
		})
	}
}
