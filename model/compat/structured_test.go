package compat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/quiver-go/quiver/completion"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
)

const (
	strictVerdict = `{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved","reason"],"additionalProperties":false}`
	looseVerdict  = `{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string","maxLength":80}},"required":["approved"]}`
)

type verdict struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason"`
}

func verdictCompletion(schema string) *completion.Completion[verdict] {
	return completion.New(completion.Definition{Name: "review_verdict", Description: "The review's verdict.", Schema: json.RawMessage(schema)},
		func(raw []byte) (verdict, error) {
			var v verdict
			err := json.Unmarshal(raw, &v)
			return v, err
		})
}

func verdictRequest() *model.Request {
	return &model.Request{Messages: []model.Message{model.UserMessage("Review the change.")}}
}

// sdkResponseFormat is what the SDK's own types write for the format.
func sdkResponseFormat(t *testing.T, schema string, strict bool) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		t.Fatal(err)
	}
	f := openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
		JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
			Name: "review_verdict", Description: openai.String("The review's verdict."), Schema: m, Strict: openai.Bool(strict),
		},
	}}
	raw, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return canonical(t, raw)
}

// canonical re-encodes JSON with sorted keys.
func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestStructuredOutputSendsResponseFormat(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		strict bool
	}{
		{"strict schema", strictVerdict, true},
		{"schema outside strict mode", looseVerdict, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(t, replies(`{"approved":false,"reason":"no tests"}`))
			v, err := verdictCompletion(tc.schema).Complete(ctx(t), p.client(WithStructuredOutput()), verdictRequest())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if v != (verdict{Approved: false, Reason: "no tests"}) {
				t.Fatalf("value = %+v", v)
			}
			reqs := p.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if got, want := canonical(t, body["response_format"]), sdkResponseFormat(t, tc.schema, tc.strict); got != want {
				t.Fatalf("response_format = %s\nwant %s", got, want)
			}
			if !strings.Contains(string(reqs[0].Body), `"schema":`+tc.schema) {
				t.Fatalf("the schema was not sent as declared: %s", reqs[0].Body)
			}
		})
	}
}

func TestStructuredOutputInvalidAnswerIsAContractErrorAfterOneRequest(t *testing.T) {
	for name, answer := range map[string]providerfake.Answer{
		"schema violation": replies(`{"approved":true}`),
		"not JSON":         replies(`Looks good to me.`),
		"cut at the limit": providerfake.OK(providerfake.ChatCompletion("length", `{"approved":tr`, usage)),
	} {
		t.Run(name, func(t *testing.T) {
			// A second, valid answer: a retry would take it.
			p := newProvider(t, answer, replies(`{"approved":true,"reason":"ok"}`))
			_, err := verdictCompletion(strictVerdict).Complete(ctx(t), p.client(WithStructuredOutput()), verdictRequest())
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

func TestStructuredOutputWithoutDeclaredSupportIsRefusedBeforeSending(t *testing.T) {
	p := newProvider(t)
	c := p.client()
	_, err := verdictCompletion(strictVerdict).Complete(ctx(t), c, verdictRequest())
	if !errors.Is(err, model.ErrStructuredOutputUnsupported) || !strings.Contains(err.Error(), "WithStructuredOutput") {
		t.Fatalf("Complete err = %v, want ErrStructuredOutputUnsupported naming WithStructuredOutput", err)
	}
	if _, err := verdictCompletion(strictVerdict).StreamComplete(ctx(t), c, verdictRequest()); !errors.Is(err, model.ErrStructuredOutputUnsupported) {
		t.Fatalf("StreamComplete err = %v, want ErrStructuredOutputUnsupported", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests, want 0", n)
	}
}
