package model

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/tools"
)

// DiscoveryMetaKey is the [Message.Meta] key of discovery records. Every
// adapter that searches deferred tools writes one on the message that
// carries the search's outcome; the runtime's catalog re-applies them at
// each planning step. There is no other store of loaded tools: a discovery
// lasts as long as its record stays in the transcript.
const DiscoveryMetaKey = "quiver.discovery"

// Discovery is one discovery record.
type Discovery struct {
	// Tools are the deferred tools the search made callable.
	Tools []tools.Ident `json:"tools,omitempty"`
	// Searches counts the searches our code answered on this message; they
	// count against the per-turn budget. Provider-hosted searches are not
	// counted.
	Searches int `json:"searches,omitempty"`
	// Exhausted records that a search was refused for want of budget.
	Exhausted bool `json:"exhausted,omitempty"`
}

// Discovery returns the message's discovery record, if any.
func (m Message) Discovery() (Discovery, bool) {
	raw, ok := m.Meta[DiscoveryMetaKey]
	if !ok {
		return Discovery{}, false
	}
	var d Discovery
	if err := json.Unmarshal(raw, &d); err != nil {
		return Discovery{}, false
	}
	return d, true
}

// SetDiscovery records d on the message, replacing any earlier record.
func (m *Message) SetDiscovery(d Discovery) {
	raw, err := json.Marshal(d)
	if err != nil {
		return // a struct of strings, ints and bools always encodes
	}
	if m.Meta == nil {
		m.Meta = make(map[string]json.RawMessage)
	}
	m.Meta[DiscoveryMetaKey] = raw
}

// DiscoveredTools returns the tools discovered anywhere in msgs, sorted and
// without repeats.
func DiscoveredTools(msgs []Message) []tools.Ident {
	var out []tools.Ident
	for _, m := range msgs {
		if d, ok := m.Discovery(); ok {
			for _, id := range d.Tools {
				if !slices.Contains(out, id) {
					out = append(out, id)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// DiscoveryState is what a conversation has discovered so far and what the
// current turn's searches have used: the runtime's catalog keeps it,
// carried forward from step to step, and sends it with every request
// ([Request.Discovery]), so adapters never re-derive it from the transcript.
type DiscoveryState struct {
	// Tools are the deferred tools discovered so far in the conversation.
	Tools []tools.Ident `json:"tools,omitempty"`
	// Searches counts the searches our code answered in the current turn.
	Searches int `json:"searches,omitempty"`
	// Exhausted records that a search was refused for want of budget in
	// the current turn.
	Exhausted bool `json:"exhausted,omitempty"`
}

// Apply adds a discovery record to s.
func (s *DiscoveryState) Apply(d Discovery) {
	for _, id := range d.Tools {
		if !slices.Contains(s.Tools, id) {
			s.Tools = append(s.Tools, id)
		}
	}
	slices.Sort(s.Tools)
	s.Searches += d.Searches
	s.Exhausted = s.Exhausted || d.Exhausted
}

// DiscoveryStateOf returns the state the records in msgs give: every tool
// discovered, and the searches of the current turn. The runtime computes
// it once when a run starts and carries it forward; adapters use it only
// for a request that carries no [Discovery] (an adapter called directly).
func DiscoveryStateOf(msgs []Message) DiscoveryState {
	return DiscoveryState{Tools: DiscoveredTools(msgs), Searches: SearchesThisTurn(msgs), Exhausted: SearchExhaustedThisTurn(msgs)}
}

// ContinuesTurnMetaKey marks a user message that answers a question asked
// within a turn (a clarification): it does not start a new turn, so the
// turn's search budget goes on.
const ContinuesTurnMetaKey = "quiver.continues_turn"

// TurnStart returns the index of the current turn's first message: the
// last user message that holds text and is not marked as continuing the
// turn (tool results do not start a turn either). It returns 0 when there
// is none.
func TurnStart(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if _, continues := msgs[i].Meta[ContinuesTurnMetaKey]; continues {
			continue
		}
		if msgs[i].Role == RoleUser && msgs[i].TextContent() != "" {
			return i
		}
	}
	return 0
}

// SearchesThisTurn counts the searches our code answered in the current
// turn, from the discovery records of msgs.
func SearchesThisTurn(msgs []Message) int {
	n := 0
	for _, m := range msgs[TurnStart(msgs):] {
		if d, ok := m.Discovery(); ok {
			n += d.Searches
		}
	}
	return n
}

// SearchExhaustedThisTurn reports whether a search was refused for want of
// budget in the current turn.
func SearchExhaustedThisTurn(msgs []Message) bool {
	for _, m := range msgs[TurnStart(msgs):] {
		if d, ok := m.Discovery(); ok && d.Exhausted {
			return true
		}
	}
	return false
}

// SearchCap returns the per-turn budget of s ([DefaultSearchCap] when unset).
func (s SearchSettings) SearchCap() int {
	if s.Cap > 0 {
		return s.Cap
	}
	return DefaultSearchCap
}

// SearchToolName returns the portable search tool's name.
func (s SearchSettings) SearchToolName() string {
	if s.ToolName != "" {
		return s.ToolName
	}
	return DefaultSearchToolName
}

// CheckToolName refuses a [SearchSettings.ToolName] that is set and is not a
// wire name ([tools.ValidWireName]): no provider could carry it as a tool name.
// The native adapters check it before sending anything and in SupportsSearch.
func (s SearchSettings) CheckToolName() error {
	if s.ToolName != "" && !tools.ValidWireName(s.ToolName) {
		return fmt.Errorf("search tool name %q (SearchSettings.ToolName) must match ^[a-zA-Z0-9_-]{1,64}$", s.ToolName)
	}
	return nil
}

// HasDeferred reports whether any definition is deferred.
func HasDeferred(defs []ToolDefinition) bool {
	return slices.ContainsFunc(defs, func(d ToolDefinition) bool { return d.Deferred })
}

// SearchInstructor is implemented by clients whose native search the model
// invokes other than through a tool_search call (Anthropic's hosted search,
// for one). The runtime puts the instruction in the refusal a model reads
// when it calls a deferred tool it has not discovered.
type SearchInstructor interface {
	// SearchInstruction returns how a model using settings discovers a
	// tool, with "%s" standing for its wire name, e.g. "Search for '%s'
	// with the tool search tool"; "" when the client has nothing to say.
	SearchInstruction(settings SearchSettings) string
}

// PortableInstruction is the refusal's instruction for portable search:
// call the search tool by its name.
func (s SearchSettings) PortableInstruction() string {
	return "Call " + s.SearchToolName() + "(query='%s') to discover it"
}

// RecordForcedTool records, on the last message of resp, a deferred tool
// that req forced with [ToolChoiceTool]: adapters advertise a forced tool
// eagerly, so the runtime must admit the call the model makes to it.
func RecordForcedTool(req *Request, resp *Response) {
	if req.ToolChoice.Mode != ToolChoiceTool || len(resp.Messages) == 0 {
		return
	}
	i := slices.IndexFunc(req.Tools, func(d ToolDefinition) bool { return d.Name == req.ToolChoice.Name })
	if i < 0 || !req.Tools[i].Deferred || req.Tools[i].Ident == "" {
		return
	}
	last := &resp.Messages[len(resp.Messages)-1]
	d, _ := last.Discovery()
	if !slices.Contains(d.Tools, req.Tools[i].Ident) {
		d.Tools = append(d.Tools, req.Tools[i].Ident)
	}
	last.SetDiscovery(d)
}
