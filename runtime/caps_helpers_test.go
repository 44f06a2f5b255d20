package runtime

import (
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// Helpers of caps_test.go (MaxToolCalls, MaxRecoveryTurns, TerminalRun,
// tool_unavailable, teaching errors, transcript validity).

// capsSpec builds a valid spec <toolset>.<name>, like newSpec for another
// toolset.
func capsSpec(t *testing.T, toolset, name string, opts ...specOption) tools.ToolSpec {
	t.Helper()
	id, err := tools.NewIdent(toolset, name)
	if err != nil {
		t.Fatal(err)
	}
	s := tools.ToolSpec{
		Name:        id,
		Title:       "Tool " + name,
		Description: "The " + name + " tool.",
		Payload:     mustType(t, `{"type":"object","properties":{"q":{"type":"string"}}}`),
	}
	for _, o := range opts {
		o(&s)
	}
	s.Search = search.NewDocument(s.SearchSource())
	return s
}

// capsFailure decodes the failure JSON a model reads in a tool result.
type capsFailure struct {
	Error    string `json:"error"`
	Message  string `json:"message"`
	Recovery string `json:"recovery"`
}

func capsDecodeFailure(t *testing.T, r model.ToolResult) capsFailure {
	t.Helper()
	if !r.IsError {
		t.Errorf("result of %s (%s) is not marked as an error: %s", r.CallID, r.Name, r.Content)
	}
	var f capsFailure
	if err := json.Unmarshal(r.Content, &f); err != nil {
		t.Fatalf("result of %s is not failure JSON: %v: %s", r.CallID, err, r.Content)
	}
	return f
}

// capsResultOf returns the single tool result answering callID in msgs.
func capsResultOf(t *testing.T, msgs []model.Message, callID string) model.ToolResult {
	t.Helper()
	var found []model.ToolResult
	for _, r := range toolResults(msgs) {
		if r.CallID == callID {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("call %s has %d results, want 1", callID, len(found))
	}
	return found[0]
}
