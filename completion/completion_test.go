package completion_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/completion"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
)

// report is the typed answer of the tests' completion.
type report struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
}

const reportSchema = `{"type":"object","properties":{"city":{"type":"string","minLength":1},"temp":{"type":"number"}},"required":["city","temp"],"additionalProperties":false}`

func decodeReport(raw []byte) (report, error) {
	var r report
	err := json.Unmarshal(raw, &r)
	return r, err
}

func newReport() *completion.Completion[report] {
	return completion.New(completion.Definition{
		Name:        "weather_report",
		Description: "The weather in the city the user names.",
		Schema:      json.RawMessage(reportSchema),
	}, decodeReport)
}

func userRequest() *model.Request {
	return &model.Request{Model: "m", Messages: []model.Message{model.UserMessage("Weather in Paris?")}}
}

func TestCompleteDecodesAValidAnswerAndSendsTheDefinition(t *testing.T) {
	client := scripted.New(scripted.Reply(`{"city":"Paris","temp":21.5}`))
	req := userRequest()
	got, err := newReport().Complete(context.Background(), client, req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got != (report{City: "Paris", Temp: 21.5}) {
		t.Fatalf("value = %+v", got)
	}
	if req.StructuredOutput != nil {
		t.Fatalf("the caller's request was modified: StructuredOutput = %+v", req.StructuredOutput)
	}
	reqs := client.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	so := reqs[0].StructuredOutput
	if so == nil || so.Name != "weather_report" || so.Description != "The weather in the city the user names." || string(so.Schema) != reportSchema {
		t.Fatalf("sent StructuredOutput = %+v", so)
	}
	if len(reqs[0].Messages) != 1 || reqs[0].Model != "m" {
		t.Fatalf("sent request lost the caller's conversation: %+v", reqs[0])
	}
}

func TestCompleteInvalidAnswerIsAContractErrorAfterExactlyOneRequest(t *testing.T) {
	cases := []struct {
		name string
		step scripted.Step
		want string // in a violation
	}{
		{"not JSON", scripted.Reply(`The weather is fine.`), "not one JSON document"},
		{"two documents", scripted.Reply(`{"city":"Paris","temp":1} {}`), "not one JSON document"},
		{"schema violation", scripted.Reply(`{"city":"Paris","temp":"warm"}`), "temp:"},
		{"missing property", scripted.Reply(`{"city":"Paris"}`), "temp: is required"},
		{"empty answer", scripted.Reply(``), "not one JSON document"},
		{"cut at max tokens", scripted.Respond(&model.Response{
			Messages:   []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{model.Text(`{"city":"Paris","temp":2`)}}},
			StopReason: model.StopMaxTokens,
		}), "max_tokens"},
		{"tool call", scripted.Call("get_weather", `{}`), "called get_weather"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A second, valid step: a retry would consume it.
			client := scripted.New(tc.step, scripted.Reply(`{"city":"Paris","temp":1}`))
			_, err := newReport().Complete(context.Background(), client, userRequest())
			var ce *planner.OutputContractError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want *planner.OutputContractError", err, err)
			}
			if ce.Recoverable() {
				t.Fatal("contract error is recoverable")
			}
			if ce.Completion != "weather_report" {
				t.Fatalf("Completion = %q", ce.Completion)
			}
			if !strings.Contains(strings.Join(ce.Violations, "\n"), tc.want) {
				t.Fatalf("violations %q do not mention %q", ce.Violations, tc.want)
			}
			if !strings.Contains(err.Error(), "weather_report") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("message %q names neither the completion nor the violation", err)
			}
			if n := client.Calls(); n != 1 {
				t.Fatalf("%d requests, want exactly 1", n)
			}
		})
	}
}

func TestContractErrorKeepsTheRawAnswer(t *testing.T) {
	const answer = `{"city":"","temp":3}`
	client := scripted.New(scripted.Reply(answer))
	_, err := newReport().Complete(context.Background(), client, userRequest())
	var ce *planner.OutputContractError
	if !errors.As(err, &ce) || ce.Raw != answer {
		t.Fatalf("err = %v, want a contract error with Raw %q", err, answer)
	}
}

func TestDecoderRefusalIsAContractError(t *testing.T) {
	c := completion.New(completion.Definition{Name: "n", Schema: json.RawMessage(`{"type":"object"}`)},
		func([]byte) (int, error) { return 0, errors.New("cannot decode into int") })
	_, err := c.Complete(context.Background(), scripted.New(scripted.Reply(`{}`)), userRequest())
	var ce *planner.OutputContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cannot decode into int") {
		t.Fatalf("err = %v, want a contract error naming the decoder's refusal", err)
	}
}

// refusals lists the requests a completion refuses before any model
// request.
func refusals() []struct {
	name string
	req  *model.Request
	want error
} {
	withTools := userRequest()
	withTools.Tools = []model.ToolDefinition{{Name: "get_weather", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	withChoice := userRequest()
	withChoice.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceRequired}
	withOutput := userRequest()
	withOutput.StructuredOutput = &model.StructuredOutput{Name: "mine", Schema: json.RawMessage(`{}`)}
	return []struct {
		name string
		req  *model.Request
		want error
	}{
		{"tools", withTools, completion.ErrToolsInCompletion},
		{"tool choice", withChoice, completion.ErrToolsInCompletion},
		{"structured output", withOutput, completion.ErrStructuredOutputSet},
		{"nil request", nil, completion.ErrNilRequest},
	}
}

func TestCompleteRefusesBeforeAnyRequest(t *testing.T) {
	for _, tc := range refusals() {
		t.Run(tc.name, func(t *testing.T) {
			client := scripted.New(scripted.Reply(`{"city":"Paris","temp":1}`))
			_, err := newReport().Complete(context.Background(), client, tc.req)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Complete err = %v, want %v", err, tc.want)
			}
			s, err := newReport().StreamComplete(context.Background(), client, tc.req)
			if !errors.Is(err, tc.want) || s != nil {
				t.Fatalf("StreamComplete = %v, %v, want %v", s, err, tc.want)
			}
			if n := client.Calls(); n != 0 {
				t.Fatalf("%d requests, want 0", n)
			}
		})
	}
}

func TestInvalidDefinitionFailsEveryCallBeforeAnyRequest(t *testing.T) {
	cases := []struct {
		name   string
		def    completion.Definition
		decode func([]byte) (report, error)
		want   string
	}{
		{"empty name", completion.Definition{Schema: json.RawMessage(reportSchema)}, decodeReport, "name"},
		{"name too long", completion.Definition{Name: strings.Repeat("a", 65), Schema: json.RawMessage(reportSchema)}, decodeReport, "name"},
		{"array schema", completion.Definition{Name: "r", Schema: json.RawMessage(`[]`)}, decodeReport, "an array"},
		{"schema does not compile", completion.Definition{Name: "r", Schema: json.RawMessage(`{"type":7}`)}, decodeReport, "invalid schema"},
		{"nil decode", completion.Definition{Name: "r", Schema: json.RawMessage(reportSchema)}, nil, "nil decode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := completion.New(tc.def, tc.decode)
			client := scripted.New(scripted.Reply(`{"city":"Paris","temp":1}`))
			_, err := c.Complete(context.Background(), client, userRequest())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Complete err = %v, want one mentioning %q", err, tc.want)
			}
			if _, err := c.StreamComplete(context.Background(), client, userRequest()); err == nil {
				t.Fatal("StreamComplete accepted an invalid definition")
			}
			if n := client.Calls(); n != 0 {
				t.Fatalf("%d requests, want 0", n)
			}
		})
	}
}

func TestClientErrorsPassThroughWrapped(t *testing.T) {
	client := scripted.New(scripted.Fail(fmt.Errorf("adapter: the provider has none: %w", model.ErrStructuredOutputUnsupported)))
	_, err := newReport().Complete(context.Background(), client, userRequest())
	if !errors.Is(err, model.ErrStructuredOutputUnsupported) {
		t.Fatalf("err = %v, want it to wrap ErrStructuredOutputUnsupported", err)
	}
	var ce *planner.OutputContractError
	if errors.As(err, &ce) {
		t.Fatal("a client error became a contract error")
	}
}

func TestDefinitionIsACopy(t *testing.T) {
	c := newReport()
	d := c.Definition()
	d.Schema[0] = '['
	if string(c.Definition().Schema) != reportSchema {
		t.Fatal("Definition shares its schema bytes with the caller")
	}
}
