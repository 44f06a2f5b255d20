package portable

import (
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/discovery"
	"github.com/quiver-go/quiver/model"
)

// searchTool is the function the model calls to search.
func (s *session) searchTool() model.ToolDefinition {
	desc := "Find tools you do not see yet. Describe what you want to do, or name the tool; the best matches become callable on your next step."
	if s.callTool {
		desc = fmt.Sprintf("Find tools you do not see yet. Describe what you want to do, or name the tool; the answer gives the best matches with their inputSchema, to call with %s.", model.CallToolName)
	}
	return model.ToolDefinition{
		Name:        s.name,
		Title:       "Search tools",
		Description: desc,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What you want to do, or the name of a tool."}},"required":["query"]}`),
	}
}

// ownCall is a call the wrapper answers itself: a search, or (err set) a
// call-tool call whose arguments could not be read.
type ownCall struct {
	call model.ToolCall
	err  error
}

// unwrap turns a call-tool call into the call of the tool it names, with
// the same call id, as the planner receives every call: the runtime's
// admission then runs the found tool, or refuses one no search found. It
// refuses arguments it cannot read, and a call of the search tool or of
// the call-tool function itself, which the model calls directly.
func (s *session) unwrap(tc model.ToolCall) (model.ToolCall, error) {
	args, err := discovery.ParseCallTool(tc.Name, s.name, tc.Payload)
	if err != nil {
		return model.ToolCall{}, err
	}
	return model.ToolCall{ID: tc.ID, Name: args.Name, Payload: args.Arguments}, nil
}

// answer runs the searches of one response through the discovery core and
// returns the tool message holding their answers — and the answers to the
// unreadable call-tool calls — in the order of the calls, with the
// discovery record of this round, and the searches as a stream reports
// them (model.ChunkSearch). Matches join the active set here, inside the
// search execution, so the very next request carries them; in call-tool
// mode they are loaded in the turn only, and the answer carries their
// definitions instead.
func (s *session) answer(calls []ownCall) (model.Message, []model.SearchRound) {
	msg := model.Message{Role: model.RoleTool}
	var rounds []model.SearchRound
	for _, oc := range calls {
		var content json.RawMessage
		isError := true
		if oc.err != nil {
			content = discovery.InvalidCallJSON(oc.err)
		} else {
			a := s.turn.Search(oc.call.Payload)
			content, isError = a.JSON, a.IsError()
			rounds = append(rounds, searchRound(a, oc.call.Payload))
			if s.callTool {
				content = a.CallToolJSON(model.CallToolName)
			} else {
				for _, d := range a.Tools {
					s.activate(d)
				}
			}
		}
		msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolResult, ToolResult: &model.ToolResult{
			CallID: oc.call.ID, Name: oc.call.Name, Content: content, IsError: isError,
		}})
	}
	if d, ok := s.turn.TakeRecord(); ok {
		msg.SetDiscovery(d)
	}
	return msg, rounds
}

// searchRound reports a search: its query (as the model wrote it when the
// search did not run) and the wire names of the tools it made callable.
func searchRound(a discovery.Answer, payload json.RawMessage) model.SearchRound {
	r := model.SearchRound{Query: a.Query}
	if r.Query == "" {
		var args struct {
			Query string `json:"query"`
		}
		if json.Unmarshal(payload, &args) == nil {
			r.Query = args.Query
		}
	}
	for _, d := range a.Tools {
		r.Found = append(r.Found, d.Name)
	}
	return r
}
