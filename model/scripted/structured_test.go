package scripted_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

func TestStructuredOutputRequestPlaysItsStepAndIsRecordedAsACopy(t *testing.T) {
	client := scripted.New(scripted.Reply(`{"ok":true}`))
	req := &model.Request{
		Messages:         []model.Message{model.UserMessage("answer")},
		StructuredOutput: &model.StructuredOutput{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`)},
	}
	resp, err := client.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if resp.Text() != `{"ok":true}` {
		t.Fatalf("text = %q, want the scripted reply unchanged", resp.Text())
	}
	req.StructuredOutput.Schema[0] = '['
	req.StructuredOutput.Name = "changed"
	got := client.Requests()[0].StructuredOutput
	if got == nil || got.Name != "answer" || string(got.Schema) != `{"type":"object"}` {
		t.Fatalf("recorded StructuredOutput = %+v, want a deep copy of what was sent", got)
	}
}
