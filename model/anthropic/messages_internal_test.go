package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
)

func TestReminderBecomesTextOfTheUserMessageAfterToolResults(t *testing.T) {
	call := model.ToolCall{ID: "toolu_1", Name: "lookup", Payload: json.RawMessage(`{"q":"x"}`)}
	msgs := []model.Message{
		model.UserMessage("find x"),
		{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &call}}},
		{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "toolu_1", Name: "lookup", Content: json.RawMessage(`{"n":1}`)}}}},
		model.SystemMessage("<system-reminder>\nThe user sees a chart.\n</system-reminder>"),
	}
	out, err := renderMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 {
		t.Fatalf("%d messages, want user, assistant, user", len(out))
	}
	raw, err := json.Marshal(out[2])
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	if !strings.Contains(s, `"role":"user"`) || strings.Index(s, `"tool_result"`) > strings.Index(s, `system-reminder`) || !strings.Contains(s, `"type":"text"`) {
		t.Fatalf("last message = %s: want one user message with the tool result first, then the reminder as text", s)
	}
}
