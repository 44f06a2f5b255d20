package planner

// TerminationReason says why a run ended.
type TerminationReason string

// The termination reasons.
const (
	// ReasonFinalResponse: the planner answered.
	ReasonFinalResponse TerminationReason = "final_response"
	// ReasonFinalToolResult: the planner ended with a tool result.
	ReasonFinalToolResult TerminationReason = "final_tool_result"
	// ReasonTerminalTool: a TerminalRun tool succeeded.
	ReasonTerminalTool TerminationReason = "terminal_tool"
	// ReasonToolCap: a batch did not fit MaxToolCalls.
	ReasonToolCap TerminationReason = "tool_cap"
	// ReasonRecoveryExhausted: MaxRecoveryTurns were spent.
	ReasonRecoveryExhausted TerminationReason = "recovery_exhausted"
	// ReasonTimeBudget: the run's time budget ran out.
	ReasonTimeBudget TerminationReason = "time_budget"
	// ReasonMissingFields: required fields were missing under
	// OnMissingFields("finalize").
	ReasonMissingFields TerminationReason = "missing_fields"
	// ReasonToolFailure: a failed call asked the run to finish
	// (RecoveryFinish).
	ReasonToolFailure TerminationReason = "tool_failure"
	// ReasonCanceled: the run was canceled.
	ReasonCanceled TerminationReason = "canceled"
)
