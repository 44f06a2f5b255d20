package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// Snapshot is a catalog's admission data: plain, serializable, and the same
// for every admission decision of one planning step.
type Snapshot struct {
	Tools []SnapshotTool `json:"tools"`
	// Discovered lists the deferred tools found by search so far in the
	// conversation, this step's searches included; they are admitted like
	// inline tools.
	Discovered []tools.Ident `json:"discovered,omitempty"`
	// Search says how the model searches, for the refusal message.
	Search model.SearchSettings `json:"search,omitzero"`
	// SearchInstruction, when set, tells the model how to discover a tool
	// with the search it has ("%s" stands for the wire name); it comes from
	// a client implementing [model.SearchInstructor]. Without it portable
	// search names its tool and native search reads "Call
	// tool_search(query='%s') to discover it".
	SearchInstruction string `json:"search_instruction,omitempty"`
}

// SnapshotTool is one tool of a snapshot.
type SnapshotTool struct {
	Ident    tools.Ident `json:"ident"`
	Wire     string      `json:"wire"`
	Deferred bool        `json:"deferred,omitempty"`
}

// Verdict is an admission decision.
type Verdict string

// The admission verdicts.
const (
	// Admitted: the call may run (subject to the caps).
	Admitted Verdict = "admitted"
	// Refused: a deferred tool not yet discovered; nothing runs, no cap is
	// charged, and the model is told how to find it.
	Refused Verdict = "refused"
	// Unknown: the tool is not in the agent's catalog at all.
	Unknown Verdict = "unknown"
)

// Admission is the decision for one call.
type Admission struct {
	Verdict Verdict
	// Ident is the resolved tool ([Admitted], [Refused]).
	Ident tools.Ident
	// Message is what the model reads for [Refused] and [Unknown].
	Message string
}

// Admit decides whether a call may run. name is the wire name the model
// used; ident, when non-empty, is a planner-resolved tool and wins.
func (s Snapshot) Admit(name string, ident tools.Ident) Admission {
	i := slices.IndexFunc(s.Tools, func(t SnapshotTool) bool {
		if ident != "" {
			return t.Ident == ident
		}
		return t.Wire == name
	})
	if i < 0 {
		shown := name
		if ident != "" {
			shown = string(ident)
		}
		return Admission{Verdict: Unknown, Message: fmt.Sprintf("Tool '%s' is not available to this agent. Use one of: %s", shown, strings.Join(s.inlineNames(), ", "))}
	}
	t := s.Tools[i]
	if t.Deferred && !slices.Contains(s.Discovered, t.Ident) {
		return Admission{Verdict: Refused, Ident: t.Ident, Message: s.refusal(t.Wire)}
	}
	return Admission{Verdict: Admitted, Ident: t.Ident}
}

// Wire returns the wire name of ident in the snapshot.
func (s Snapshot) Wire(ident tools.Ident) (string, bool) {
	for _, t := range s.Tools {
		if t.Ident == ident {
			return t.Wire, true
		}
	}
	return "", false
}

// inlineNames returns the sorted wire names of the tools the model may call
// without searching.
func (s Snapshot) inlineNames() []string {
	var names []string
	for _, t := range s.Tools {
		if !t.Deferred || slices.Contains(s.Discovered, t.Ident) {
			names = append(names, t.Wire)
		}
	}
	slices.Sort(names)
	return names
}

// refusal is the message for a deferred tool not yet discovered.
func (s Snapshot) refusal(wire string) string {
	return Refusal(wire, s.inlineNames(), s.Search, s.SearchInstruction)
}

// Refusal is the message a model reads when it calls wire, a deferred tool
// its searches have not found: the search it actually has (DESIGN.md,
// "Catalog") and the tools it may call without one, inline, in the order
// given (the clause is left out when there are none: the message then
// ends with the search). instruction, when set, overrides the search's own wording ("%s"
// stands for the wire name; [model.SearchInstructor]). The runtime's
// admission and the MCP server both answer with it.
func Refusal(wire string, inline []string, search model.SearchSettings, instruction string) string {
	how := instruction
	switch {
	case how != "":
	case search.Mode == model.SearchPortable:
		how = search.PortableInstruction()
	default:
		how = "Call tool_search(query='%s') to discover it"
	}
	msg := fmt.Sprintf("Tool '%s' not in active set. %s", wire, strings.ReplaceAll(how, "%s", wire))
	if len(inline) == 0 {
		return msg + "."
	}
	return msg + ", or use one of: " + strings.Join(inline, ", ")
}
