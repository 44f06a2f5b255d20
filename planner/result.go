package planner

import (
	"encoding/json"
	"fmt"
	"github.com/quiver-go/quiver/toolcall"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// PlanResult is a planner's decision. Exactly one of ToolCalls,
// FinalResponse, FinalToolResult or Await is set.
type PlanResult struct {
	// Messages are the assistant messages to append to the transcript
	// (with the model adapter's metadata), before admission.
	Messages []model.Message `json:"messages,omitempty"`
	// ToolCalls are the calls to run next, a batch admitted whole or not
	// at all.
	ToolCalls []ToolRequest `json:"tool_calls,omitempty"`
	// FinalResponse ends the run with an answer.
	FinalResponse *FinalResponse `json:"final_response,omitempty"`
	// FinalToolResult ends the run with a tool result as its output.
	FinalToolResult *ToolResult `json:"final_tool_result,omitempty"`
	// Await suspends the run until the caller answers.
	Await *Await `json:"await,omitempty"`
	// Usage is the model usage of the step.
	Usage model.Usage `json:"usage,omitzero"`
}

// FinalResponse is a run's answer.
type FinalResponse struct {
	Text string `json:"text"`
}

// AwaitKind says what a suspended run waits for.
type AwaitKind string

// The await kinds.
const (
	AwaitClarification AwaitKind = "clarification"
	AwaitConfirmation  AwaitKind = "confirmation"
	AwaitExternal      AwaitKind = "external"
)

// Await suspends the run.
type Await struct {
	Kind AwaitKind `json:"kind"`
	// Prompt is shown to the person asked.
	Prompt string `json:"prompt"`
	// Fields names the missing fields of a clarification.
	Fields []string `json:"fields,omitempty"`
}

// ToolRequest is one tool call a planner wants to run.
type ToolRequest struct {
	// CallID identifies the call (the provider's id when there is one).
	CallID string `json:"call_id"`
	// Name is the wire name the model used; empty when Ident is set.
	Name string `json:"name,omitempty"`
	// Ident is the tool, when the planner knows it (NewToolRequest).
	Ident tools.Ident `json:"ident,omitempty"`
	// Payload is the JSON arguments.
	Payload json.RawMessage `json:"payload"`
}

// NewToolRequest builds a request for a typed tool, encoding payload with
// the tool's codec.
func NewToolRequest[P, R any](tool tools.TypedTool[P, R], payload P) (ToolRequest, error) {
	raw, err := tool.Payload.ToJSON(payload)
	if err != nil {
		return ToolRequest{}, fmt.Errorf("planner: %s: encode payload: %w", tool.Spec.Name, err)
	}
	return ToolRequest{Ident: tool.Spec.Name, Payload: raw}, nil
}

// The outcome types of one tool call live in package toolcall, which the
// runtime and the MCP server share; these aliases keep the names planners
// and generated code use.
type (
	// Bounds describe a bounded result: a view on a larger set.
	Bounds = toolcall.Bounds
	// ServerData is one server-only output of a tool; never sent to a model.
	ServerData = toolcall.ServerData
	// ToolResult is an executed tool's outcome.
	ToolResult = toolcall.Result
	// RecoveryAction says what a failed call asks of the planner.
	RecoveryAction = toolcall.Recovery
	// ToolFailure is a failed call, with the message the model reads; its
	// Code is a toolcall.Kind.
	ToolFailure = toolcall.Failure
)

// The recovery actions.
const (
	// RecoveryCorrectCall: fix the arguments and call again.
	RecoveryCorrectCall = toolcall.RecoveryCorrectCall
	// RecoveryReplan: plan again without this tool.
	RecoveryReplan = toolcall.RecoveryReplan
	// RecoveryFinish: stop and answer.
	RecoveryFinish = toolcall.RecoveryFinish
)
