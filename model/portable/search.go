package portable

import (
	"encoding/json"

	"github.com/quiver-go/quiver/model"
)

// searchTool is the function the model calls to search.
func (s *session) searchTool() model.ToolDefinition {
	return model.ToolDefinition{
		Name:        s.name,
		Title:       "Search tools",
		Description: "Find tools you do not see yet. Describe what you want to do, or name the tool; the best matches become callable on your next step.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What you want to do, or the name of a tool."}},"required":["query"]}`),
	}
}

// answer runs the searches of one response through the discovery core and
// returns the tool message holding their answers, with the discovery
// record of this round. Matches join the active set here, inside the
// search execution, so the very next request carries them.
func (s *session) answer(calls []model.ToolCall) model.Message {
	msg := model.Message{Role: model.RoleTool}
	for _, call := range calls {
		a := s.turn.Search(call.Payload)
		for _, d := range a.Tools {
			s.activate(d)
		}
		msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolResult, ToolResult: &model.ToolResult{
			CallID: call.ID, Name: call.Name, Content: a.JSON, IsError: a.IsError(),
		}})
	}
	if d, ok := s.turn.TakeRecord(); ok {
		msg.SetDiscovery(d)
	}
	return msg
}
