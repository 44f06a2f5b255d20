package catalog

import "github.com/quiver-go/quiver/model"

// Search is how a step's model searches deferred tools: the agent's
// settings and the client's own instruction for the refusal
// ([model.SearchInstructor]), "" when it has none.
type Search struct {
	Settings    model.SearchSettings
	Instruction string
}

// Advance returns state with the discovery records of msgs applied: the
// tools they discovered join the conversation's, their searches count
// against the current turn. The runtime keeps the state from step to step
// and advances it with each step's new messages only, instead of reading
// the whole transcript again.
func Advance(state model.DiscoveryState, msgs []model.Message) model.DiscoveryState {
	for _, m := range msgs {
		if d, ok := m.Discovery(); ok {
			state.Apply(d)
		}
	}
	return state
}

// NewTurn returns the state a new turn starts from: the tools discovered in
// the conversation so far (history, from its records), no searches yet.
func NewTurn(history []model.Message) model.DiscoveryState {
	return model.DiscoveryState{Tools: model.DiscoveredTools(history)}
}
