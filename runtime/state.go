package runtime

import (
	"encoding/json"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/render"
	"github.com/quiver-go/quiver/tools"
)

// runState is everything a run carries between steps. It is plain data:
// it crosses activities, ends up in suspension checkpoints and replays.
type runState struct {
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id,omitempty"`
	// SessionVersion is the version of the session the run loaded: its
	// save succeeds only over it (SessionStore.Save).
	SessionVersion int64             `json:"session_version,omitempty"`
	TurnID         string            `json:"turn_id"`
	Agent          string            `json:"agent"`
	OneShot        bool              `json:"one_shot,omitempty"`
	Labels         map[string]string `json:"labels,omitempty"`
	// ParentRunID and ParentCallID name the run and call that started
	// this run as a child (agent-as-tool; empty otherwise).
	ParentRunID  string `json:"parent_run_id,omitempty"`
	ParentCallID string `json:"parent_call_id,omitempty"`
	// EventSeq is the sequence number of the run's latest event: a
	// continuation numbers on from it.
	EventSeq int64 `json:"event_seq,omitempty"`
	// Depth is how many runs started this one as a child (0 for a run
	// started by Start); MaxDepth the deepest child any run of its tree
	// may start (RunPolicy.MaxAgentDepth, the strictest on the way down).
	Depth    int `json:"depth,omitempty"`
	MaxDepth int `json:"max_depth,omitempty"`
	// BudgetCap bounds a child run's time budget: what its parent's budget
	// had left when the call started it (0: no cap).
	BudgetCap time.Duration `json:"budget_cap,omitempty"`
	// Child is the suspended child run of the batch's current call: its
	// checkpoint lives here, in its parent's, and Continue on the parent
	// resumes it.
	Child *childCheckpoint `json:"child,omitempty"`

	// Transcript is the session history followed by this run's messages,
	// which start at TurnStart.
	Transcript []model.Message `json:"transcript"`
	TurnStart  int             `json:"turn_start"`

	// ToolCalls counts budgeted calls; Recovery counts recovery turns
	// since the last successful budgeted work; Step counts planning steps.
	ToolCalls int `json:"tool_calls"`
	Recovery  int `json:"recovery"`
	// BookkeepingFailures counts consecutive turns whose only failures were
	// bookkeeping calls (a safety net: they cost no recovery turn).
	BookkeepingFailures int `json:"bookkeeping_failures,omitempty"`
	Step                int `json:"step"`

	Reminders       render.ReminderQueue `json:"reminders"`
	ResultReminders []string             `json:"result_reminders,omitempty"`

	// Elapsed is the active time of earlier segments (suspended time is
	// never counted).
	Elapsed time.Duration `json:"elapsed"`
	Usage   model.Usage   `json:"usage"`

	// Outputs are the compact results of the last batch, for PlanResume.
	Outputs []planner.ToolOutput `json:"outputs,omitempty"`
	Started bool                 `json:"started,omitempty"`

	Heads    []chainHead        `json:"heads,omitempty"`
	Timeline []ServerDataRecord `json:"timeline,omitempty"`
	Evidence []ServerDataRecord `json:"evidence,omitempty"`

	// Awaiting is the kind of a planner's await the run is suspended on.
	Awaiting planner.AwaitKind `json:"awaiting,omitempty"`

	// Batch is the batch being executed, when a suspension interrupted it.
	Batch *batchState `json:"batch,omitempty"`
	// Discovery is what the conversation has discovered and this turn's
	// searches used: computed from the history when the run starts, then
	// advanced with each planning step's messages (catalog.Advance).
	Discovery model.DiscoveryState `json:"discovery"`

	// Decided lists the confirmations decided in this run, so a replayed
	// decision is refused.
	Decided []decidedCall `json:"decided,omitempty"`

	// IgnoredCheckpoints are the cache checkpoints this run already
	// reported ignored (CacheCheckpointIgnored), so a later step or a
	// continuation does not report them again.
	IgnoredCheckpoints []model.CacheCheckpoint `json:"ignored_checkpoints,omitempty"`
}

// batchState is an admitted batch, executed call by call so a confirmation
// can suspend it and Continue can finish it.
type batchState struct {
	Calls []admittedCall `json:"calls"`
	// Next is the index of the first call not executed yet.
	Next int `json:"next"`
	// Final is a final response planned with bookkeeping-only calls.
	Final *planner.FinalResponse `json:"final,omitempty"`
	// FinalToolResult is a final tool result planned with bookkeeping-only
	// calls.
	FinalToolResult *planner.ToolResult `json:"final_tool_result,omitempty"`
	// Await is an await planned with bookkeeping-only calls.
	Await *planner.Await `json:"await,omitempty"`
	// Finalizing is set when the batch runs in a finalizing turn.
	Finalizing planner.TerminationReason `json:"finalizing,omitempty"`
	// Outcome accumulates what the executed calls did.
	Outcome batchOutcome `json:"outcome"`
}

// admittedCall is one call of a batch with its admission decision.
type admittedCall struct {
	CallID string      `json:"call_id"`
	Wire   string      `json:"wire"`
	Ident  tools.Ident `json:"ident,omitempty"`
	// Payload is the canonical payload (tools.CanonicalPayload) of an
	// admitted call, completed by any clarification: what a confirmation
	// shows and what runs.
	Payload json.RawMessage `json:"payload"`
	// Failure, when set, is the result given without execution (refused,
	// unknown, over the cap).
	Failure *planner.ToolFailure `json:"failure,omitempty"`
	// Budgeted calls count against MaxToolCalls.
	Budgeted bool `json:"budgeted,omitempty"`
	// Decided is set once a confirmation was answered for Payload; a
	// clarification that changes Payload clears it.
	Decided *bool `json:"decided,omitempty"`
	// Contract is the saved contract of a call to a registry tool: what it
	// is confirmed, decoded, validated and run with, whatever the registry
	// lists later.
	Contract *savedContract `json:"contract,omitempty"`
	// Agent is the agent a call of an agent toolset runs as a child, as
	// registered when the call was admitted: a continuation in a process
	// whose registration names another agent still runs this one.
	// ResultSchema is the tool's result contract then, which the child's
	// answer must meet.
	Agent        string          `json:"agent,omitempty"`
	ResultSchema json.RawMessage `json:"result_schema,omitempty"`
}

// batchOutcome summarizes an executed batch for the recovery rules.
type batchOutcome struct {
	SuccessBudgeted bool                `json:"success_budgeted,omitempty"`
	Rejected        bool                `json:"rejected,omitempty"`
	Terminal        *planner.ToolResult `json:"terminal,omitempty"`
	TerminalIdent   tools.Ident         `json:"terminal_ident,omitempty"`
	MissingFinalize bool                `json:"missing_finalize,omitempty"`
	// BookkeepingFailed is set when a bookkeeping call failed: it opens
	// another planner turn (per its recovery action) without costing a
	// recovery turn.
	BookkeepingFailed bool `json:"bookkeeping_failed,omitempty"`
	// Finish is set when a failure asked the run to finish.
	Finish bool `json:"finish,omitempty"`
}

// chainHead is an active ContinueWith pagination chain: the partner tool
// may be called without a cursor while exactly one head is active for it.
type chainHead struct {
	Partner tools.Ident `json:"partner"`
	Cursor  string      `json:"cursor"`
	// Batch is the planning step that created or advanced the head.
	Step int `json:"step"`
	// Contract is the partner's contract saved with the registry call
	// that opened the chain: its pages come from the same registration.
	Contract *savedContract `json:"contract,omitempty"`
}

// ServerDataRecord is server data kept by the runtime (timeline and
// evidence audiences).
type ServerDataRecord struct {
	CallID string             `json:"call_id"`
	Tool   tools.Ident        `json:"tool"`
	Data   planner.ServerData `json:"data"`
}

// turnMessages returns this run's messages.
func (s *runState) turnMessages() []model.Message {
	return model.CloneMessages(s.Transcript[s.TurnStart:])
}
