package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/completion"
	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
)

// The tests' completion: a strict-mode schema, and one that is not
// (an optional property, a keyword outside the subset).
const (
	strictVerdict = `{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved","reason"],"additionalProperties":false}`
	looseVerdict  = `{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string","minLength":3}},"required":["approved"]}`
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
	return &model.Request{Messages: []model.Message{model.UserMessage("Review the change.")}, MaxTokens: 200}
}

// sdkTextFormat is what the SDK's own types write for the format.
func sdkTextFormat(t *testing.T, schema string, strict bool) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		t.Fatal(err)
	}
	text := responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
		OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "review_verdict", Schema: m},
	}}
	text.Format.OfJSONSchema.Description = sdk.String("The review's verdict.")
	text.Format.OfJSONSchema.Strict = sdk.Bool(strict)
	raw, err := json.Marshal(text)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestStructuredOutputSendsTheJSONSchemaFormat(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		strict bool
	}{
		{"strict schema", strictVerdict, true},
		{"schema outside strict mode", looseVerdict, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, c := newProvider(t, exchange{body: providerfake.OpenAIResponse("resp_1", providerfake.Usage{Input: 10, Output: 5},
				providerfake.OpenAIMessage("msg_1", `{"approved":true,"reason":"tests pass"}`))})
			v, err := verdictCompletion(tc.schema).Complete(context.Background(), c, verdictRequest())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if v != (verdict{Approved: true, Reason: "tests pass"}) {
				t.Fatalf("value = %+v", v)
			}
			body := p.Body(0)
			if got, want := body["text"], sdkTextFormat(t, tc.schema, tc.strict); !jsonEqual(got, want) {
				t.Fatalf("text = %s\nwant %s", mustJSON(got), mustJSON(want))
			}
			// The schema goes out byte for byte, in its declared order.
			if raw := string(p.Request(0).Body); !strings.Contains(raw, `"schema":`+tc.schema) {
				t.Fatalf("the schema was not sent as declared: %s", raw)
			}
		})
	}
}

func TestStructuredOutputInvalidAnswerIsAContractErrorAfterOneRequest(t *testing.T) {
	_, c := newProvider(t, exchange{body: providerfake.OpenAIResponse("resp_1", providerfake.Usage{Input: 10, Output: 5},
		providerfake.OpenAIMessage("msg_1", `{"approved":"yes"}`))})
	_, err := verdictCompletion(strictVerdict).Complete(context.Background(), c, verdictRequest())
	var ce *planner.OutputContractError
	if !errors.As(err, &ce) || ce.Recoverable() {
		t.Fatalf("err = %v, want a non-recoverable *planner.OutputContractError", err)
	}
	if !strings.Contains(err.Error(), "approved: must be a boolean") || !strings.Contains(err.Error(), "reason: is required") {
		t.Fatalf("err = %v, want both violations", err)
	}
	// newProvider's cleanup checks that exactly one request was made.
}

func TestStructuredOutputCutAtMaxTokensIsAContractError(t *testing.T) {
	_, c := newProvider(t, exchange{body: providerfake.OpenAIIncompleteResponse("resp_1", providerfake.Usage{Input: 10, Output: 200},
		providerfake.OpenAIMessage("msg_1", `{"approved":true,"rea`))})
	_, err := verdictCompletion(strictVerdict).Complete(context.Background(), c, verdictRequest())
	var ce *planner.OutputContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "max_tokens") {
		t.Fatalf("err = %v, want a contract error naming the token limit", err)
	}
}

func TestStructuredOutputRefusesANonObjectRootBeforeSending(t *testing.T) {
	for name, schema := range map[string]string{
		"array root": `{"type":"array","items":{"type":"string"}}`,
		"anyOf root": `{"anyOf":[{"type":"object"},{"type":"string"}]}`,
		"no type":    `{"properties":{"a":{"type":"string"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			p, c := newProvider(t)
			_, err := verdictCompletion(schema).Complete(context.Background(), c, verdictRequest())
			if !errors.Is(err, model.ErrStructuredOutputUnsupported) || !strings.Contains(err.Error(), "root") {
				t.Fatalf("err = %v, want ErrStructuredOutputUnsupported naming the root", err)
			}
			if n := len(p.Requests()); n != 0 {
				t.Fatalf("%d requests sent, want 0", n)
			}
		})
	}
}

func TestStructuredOutputInvalidDeclarationIsRefusedBeforeSending(t *testing.T) {
	p, c := newProvider(t)
	req := verdictRequest()
	req.StructuredOutput = &model.StructuredOutput{Name: "has space", Schema: json.RawMessage(strictVerdict)}
	if _, err := c.Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), "name") {
		t.Fatalf("err = %v, want the name refused", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent, want 0", n)
	}
}

func jsonEqual(a, b any) bool { return mustJSON(a) == mustJSON(b) }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
