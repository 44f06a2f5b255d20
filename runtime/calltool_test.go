package runtime

import (
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
)

// TestARefusedCallToolCallKeepsItsEnvelope stays here: it builds its
// response with the runtime's internal boundResponse.
func TestARefusedCallToolCallKeepsItsEnvelope(t *testing.T) {
	// Calls over the per-response limit lose their arguments, in the
	// plan and in the transcript; one made through call_tool still names
	// the tool it called.
	part := &model.ToolCall{ID: "c1", Name: "call_tool", Payload: json.RawMessage(`{"name":"startExport","arguments":{"q":"x"}}`)}
	plain := &model.ToolCall{ID: "c2", Name: "openTable", Payload: json.RawMessage(`{"q":"y"}`)}
	res := &planner.PlanResult{
		Messages: []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{
			{Kind: model.PartToolCall, ToolCall: part}, {Kind: model.PartToolCall, ToolCall: plain},
		}}},
		ToolCalls: []planner.ToolRequest{
			{CallID: "c1", Name: "startExport", Payload: json.RawMessage(`{"q":"x"}`)},
			{CallID: "c2", Name: "openTable", Payload: json.RawMessage(`{"q":"y"}`)},
		},
	}
	if refused := boundResponse(res, OutputLimits{MaxCallsPerResponse: 1}); len(refused) != 2 {
		t.Fatalf("refused %v, want both calls", refused)
	}
	if got := string(part.Payload); got != `{"name":"startExport","arguments":{}}` {
		t.Fatalf("the call_tool call became %s", got)
	}
	if got := string(plain.Payload); got != `{}` {
		t.Fatalf("the plain call became %s", got)
	}
}
