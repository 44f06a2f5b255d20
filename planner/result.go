package planner

import (
	"encoding/json"
	"fmt"

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

// Bounds describe a bounded result: a view on a larger set.
type Bounds struct {
	Returned       int    `json:"returned"`
	Total          *int   `json:"total,omitempty"`
	Truncated      bool   `json:"truncated"`
	NextCursor     string `json:"next_cursor,omitempty"`
	RefinementHint string `json:"refinement_hint,omitempty"`
}

// ServerData is one server-only output of a tool; never sent to a model.
type ServerData struct {
	Kind     string          `json:"kind"`
	Audience tools.Audience  `json:"audience"`
	Data     json.RawMessage `json:"data"`
}

// ToolResult is an executed tool's outcome.
type ToolResult struct {
	// Result is the result JSON (before bounds projection).
	Result json.RawMessage `json:"result,omitempty"`
	// Bounds must be set by a successful bounded tool.
	Bounds *Bounds `json:"bounds,omitempty"`
	// ServerData are server-only outputs.
	ServerData []ServerData `json:"server_data,omitempty"`
	// Failure is set when the call failed.
	Failure *ToolFailure `json:"failure,omitempty"`
	// DisplayHint, when set by the producer, is never overwritten.
	DisplayHint string `json:"display_hint,omitempty"`
}

// RecoveryAction says what a failed call asks of the planner.
type RecoveryAction string

// The recovery actions.
const (
	// RecoveryCorrectCall: fix the arguments and call again.
	RecoveryCorrectCall RecoveryAction = "correct_call"
	// RecoveryReplan: plan again without this tool.
	RecoveryReplan RecoveryAction = "replan"
	// RecoveryFinish: stop and answer.
	RecoveryFinish RecoveryAction = "finish"
)

// ToolFailure is a failed call, with the message the model reads.
type ToolFailure struct {
	// Code classifies the failure (for example "tool_unavailable",
	// "invalid_payload", "not_in_active_set", "denied", "error").
	Code     string         `json:"code"`
	Message  string         `json:"message"`
	Recovery RecoveryAction `json:"recovery"`
}

// Error implements error.
func (f *ToolFailure) Error() string { return f.Code + ": " + f.Message }
