package bedrock

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/completion"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
)

const verdictSchema = `{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved","reason"],"additionalProperties":false}`

type verdict struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason"`
}

func verdictCompletion() *completion.Completion[verdict] {
	return completion.New(completion.Definition{Name: "review_verdict", Description: "The review's verdict.", Schema: json.RawMessage(verdictSchema)},
		func(raw []byte) (verdict, error) {
			var v verdict
			err := json.Unmarshal(raw, &v)
			return v, err
		})
}

func verdictRequest() *model.Request {
	return &model.Request{Messages: []model.Message{model.UserMessage("Review the change.")}, MaxTokens: 300}
}

// jsonReply is a Converse answer whose text is the JSON document doc.
func jsonReply(doc, stop string) string {
	text, _ := json.Marshal(doc)
	return `{"output":{"message":{"role":"assistant","content":[{"text":` + string(text) + `}]}},"stopReason":"` + stop + `","usage":{"inputTokens":50,"outputTokens":10,"totalTokens":60}}`
}

func TestStructuredOutputSendsOutputConfig(t *testing.T) {
	f := newFake(t, ok(jsonReply(`{"approved":true,"reason":"tests pass"}`, "end_turn")))
	v, err := verdictCompletion().Complete(ctx(t), f.client(), verdictRequest())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if v != (verdict{Approved: true, Reason: "tests pass"}) {
		t.Fatalf("value = %+v", v)
	}
	// The wire form of types.OutputConfig (member names of the SDK's
	// schemas: outputConfig.textFormat.{type, structure.jsonSchema}).
	want := map[string]any{"textFormat": map[string]any{
		"type": "json_schema",
		"structure": map[string]any{"jsonSchema": map[string]any{
			"name": "review_verdict", "description": "The review's verdict.", "schema": verdictSchema,
		}},
	}}
	got, _ := json.Marshal(f.Requests()[0].Body["outputConfig"])
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Fatalf("outputConfig = %s\nwant %s", got, wantJSON)
	}
}

func TestStructuredOutputInvalidAnswerIsAContractErrorAfterOneRequest(t *testing.T) {
	for name, body := range map[string]string{
		"schema violation":  jsonReply(`{"approved":1,"reason":"r"}`, "end_turn"),
		"cut at max tokens": jsonReply(`{"approved":tr`, "max_tokens"),
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, ok(body), ok(jsonReply(`{"approved":true,"reason":"r"}`, "end_turn")))
			_, err := verdictCompletion().Complete(ctx(t), f.client(), verdictRequest())
			var ce *planner.OutputContractError
			if !errors.As(err, &ce) || ce.Recoverable() {
				t.Fatalf("err = %v, want a non-recoverable *planner.OutputContractError", err)
			}
			if n := len(f.Requests()); n != 1 {
				t.Fatalf("%d requests, want exactly 1", n)
			}
		})
	}
}

func TestStructuredOutputInvalidDeclarationSendsNothing(t *testing.T) {
	f := newFake(t)
	req := verdictRequest()
	req.StructuredOutput = &model.StructuredOutput{Name: "review verdict", Schema: json.RawMessage(verdictSchema)}
	if _, err := f.client().Complete(ctx(t), req); err == nil || !strings.Contains(err.Error(), "name") {
		t.Fatalf("err = %v, want the name refused", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d requests, want 0", n)
	}
}
