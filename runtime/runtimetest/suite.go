package runtimetest

import (
	"testing"

	"github.com/quiver-go/quiver/engine"
)

// NewEngine returns a fresh engine for one runtime in one test; it
// registers its own cleanup with t.Cleanup. Engines from separate calls
// share no work: a workflow started on one runs its code and its
// activities on that engine alone (on Temporal, a task queue of its own),
// since each belongs to a runtime with its own registrations.
type NewEngine func(t testing.TB) engine.Engine

// conformanceTest is one rule of the suite: its name and its check.
type conformanceTest struct {
	name string
	run  func(t *testing.T, newEngine NewEngine)
}

// tests are the suite's rules, in the order [Run] runs them.
var tests = []conformanceTest{
	// A run with a tool call, and its events.
	{"SmokeToolThenAnswer", testSmokeToolThenAnswer},
	{"EventsFullRunInOrder", testEventsFullRunInOrder},
	{"EventsRunCompletedCarriesTerminationReason", testEventsRunCompletedCarriesTerminationReason},
	{"EventsSuspendedRunEmitsAwaiting", testEventsSuspendedRunEmitsAwaiting},
	// Confirmations: suspension, approval, denial, continuation.
	{"ConfirmationSuspendsRunWithPendingItem", testConfirmationSuspendsRunWithPendingItem},
	{"ConfirmationApprovalRunsSavedCall", testConfirmationApprovalRunsSavedCall},
	{"ConfirmationDenialReturnsRenderedDeniedResult", testConfirmationDenialReturnsRenderedDeniedResult},
	{"WithToolConfirmationEnablesAtRuntime", testWithToolConfirmationEnablesAtRuntime},
	{"ConfirmationMidBatch", testConfirmationMidBatch},
	// Missing fields and clarifications.
	{"OnMissingFieldsFinalize", testOnMissingFieldsFinalize},
	{"OnMissingFieldsAwaitClarification", testOnMissingFieldsAwaitClarification},
	{"OnMissingFieldsResume", testOnMissingFieldsResume},
	{"OnMissingFieldsEmptyReturnsFailureToModel", testOnMissingFieldsEmptyReturnsFailureToModel},
	{"OnMissingFieldsOnlyMissingFields", testOnMissingFieldsOnlyMissingFields},
	{"InterruptsAllowedPlannerAwait", testInterruptsAllowedPlannerAwait},
	{"ContinueWithWrongAnswerKeepsRunSuspended", testContinueWithWrongAnswerKeepsRunSuspended},
	{"PlannerConfirmationAwaitIsAnsweredWithADecision", testPlannerConfirmationAwaitIsAnsweredWithADecision},
	// Tool-call caps, terminal and bookkeeping tools.
	{"MaxToolCallsBookkeepingCallsCostNothing", testMaxToolCallsBookkeepingCallsCostNothing},
	{"MaxToolCallsBatchAdmittedWholeOrRejectedWhole", testMaxToolCallsBatchAdmittedWholeOrRejectedWhole},
	{"MaxToolCallsRefusedCallsDoNotCount", testMaxToolCallsRefusedCallsDoNotCount},
	{"MaxToolCallsRefusedBeforeCapCheck", testMaxToolCallsRefusedBeforeCapCheck},
	{"MaxToolCallsUnknownToolsCountAsBudgeted", testMaxToolCallsUnknownToolsCountAsBudgeted},
	{"MaxToolCallsSuccessfulBookkeepingLeftOutOfToolOutputs", testMaxToolCallsSuccessfulBookkeepingLeftOutOfToolOutputs},
	{"ToolUnavailableForToolsTheAgentMayNotUse", testToolUnavailableForToolsTheAgentMayNotUse},
	{"InvalidPayloadReturnsTeachingError", testInvalidPayloadReturnsTeachingError},
	{"MaxRecoveryTurnsOneTurnPerRejectedToolResult", testMaxRecoveryTurnsOneTurnPerRejectedToolResult},
	{"MaxRecoveryTurnsNoRecoveryTurnsFinalizesAtOnce", testMaxRecoveryTurnsNoRecoveryTurnsFinalizesAtOnce},
	{"MaxRecoveryTurnsRejectedModelOutputCounts", testMaxRecoveryTurnsRejectedModelOutputCounts},
	{"MaxRecoveryTurnsRefusedCallsCount", testMaxRecoveryTurnsRefusedCallsCount},
	{"MaxRecoveryTurnsResetBySuccessfulBudgetedWork", testMaxRecoveryTurnsResetBySuccessfulBudgetedWork},
	{"TerminalRunSuccessEndsRunWithoutPlannerTurn", testTerminalRunSuccessEndsRunWithoutPlannerTurn},
	{"TerminalRunIsFreeUnderMaxToolCalls", testTerminalRunIsFreeUnderMaxToolCalls},
	{"TerminalRunAdmittedAfterRecoveryBudgetSpent", testTerminalRunAdmittedAfterRecoveryBudgetSpent},
	{"TerminalRunBookkeepingOnlyTurnMustResolveInSameTurn", testTerminalRunBookkeepingOnlyTurnMustResolveInSameTurn},
	{"BookkeepingFailureReopensTheTurnWithoutCostingRecovery", testBookkeepingFailureReopensTheTurnWithoutCostingRecovery},
	{"FailureAskingToFinishFinalizesTheRun", testFailureAskingToFinishFinalizesTheRun},
	// Bounded results.
	{"BoundedResultMissingBoundsIsFailure", testBoundedResultMissingBoundsIsFailure},
	{"BoundedResultProjectsBoundsFields", testBoundedResultProjectsBoundsFields},
	{"BoundedResultDirectCursor", testBoundedResultDirectCursor},
	{"BoundedResultContinueWith", testBoundedResultContinueWith},
	{"BoundedResultContinueWithParallelHeads", testBoundedResultContinueWithParallelHeads},
	{"BoundedResultContinueWithExactCursorAdvancesItsHead", testBoundedResultContinueWithExactCursorAdvancesItsHead},
	// Call-tool mode.
	{"CallToolModeKeepsEveryRequestsToolsArrayIdentical", testCallToolModeKeepsEveryRequestsToolsArrayIdentical},
	{"CallToolOfAnUndiscoveredToolIsRefusedWithTheRecoveryCall", testCallToolOfAnUndiscoveredToolIsRefusedWithTheRecoveryCall},
	{"AToolNamedCallToolIsRefusedInCallToolMode", testAToolNamedCallToolIsRefusedInCallToolMode},
	// Time budgets and timeouts; planning retries.
	{"TimeBudgetFinalizesWithFinalTurn", testTimeBudgetFinalizesWithFinalTurn},
	{"TimingToolsTimeoutIsResultModelReads", testTimingToolsTimeoutIsResultModelReads},
	{"TimingPlanTimeoutBoundsPlanningAttempt", testTimingPlanTimeoutBoundsPlanningAttempt},
	{"AFailedPlanningAttemptIsRetriedAndItsTextIsVoid", testAFailedPlanningAttemptIsRetriedAndItsTextIsVoid},
	{"APlanningFailureWithoutRetriesFailsTheRunAfterItsStreamedEvents", testAPlanningFailureWithoutRetriesFailsTheRunAfterItsStreamedEvents},
	// Sessions.
	{"ASessionKeepsItsRunsForTheNext", testASessionKeepsItsRunsForTheNext},
	// Agents as tools: child runs.
	{"AChildsAnswerIsTheParentsToolResult", testAChildsAnswerIsTheParentsToolResult},
	{"AJSONAnswerIsValidatedAgainstTheResultContract", testAJSONAnswerIsValidatedAgainstTheResultContract},
	{"AChildsFailureReachesTheParentTyped", testAChildsFailureReachesTheParentTyped},
	{"AChildOutOfTimeOrCallsIsATypedFailure", testAChildOutOfTimeOrCallsIsATypedFailure},
	{"CancellingTheParentCancelsTheChild", testCancellingTheParentCancelsTheChild},
	{"AConfirmationInsideTheChildSuspendsTheParent", testAConfirmationInsideTheChildSuspendsTheParent},
	{"TheDepthLimitHolds", testTheDepthLimitHolds},
	{"AgentToolsOfABatchRunOneAfterAnother", testAgentToolsOfABatchRunOneAfterAnother},
	{"TheAgentOfAnAdmittedCallIsKept", testTheAgentOfAnAdmittedCallIsKept},
	{"TheParentsBudgetCapsTheChilds", testTheParentsBudgetCapsTheChilds},
	{"AChildsToolCallsKnowTheirParent", testAChildsToolCallsKnowTheirParent},
	{"AClarificationAndADenialInsideTheChild", testAClarificationAndADenialInsideTheChild},
	// The run log and its followers.
	{"RunLogHoldsEverySubscribedEventOnceInOrder", testRunLogHoldsEverySubscribedEventOnceInOrder},
	{"RunLogNumbersOnAcrossAContinuation", testRunLogNumbersOnAcrossAContinuation},
	{"RunLogRecordsFailuresAndCancellations", testRunLogRecordsFailuresAndCancellations},
	{"ACallIsNeverRunUnrecorded", testACallIsNeverRunUnrecorded},
	{"SlowFollowerDoesNotHoldTheRun", testSlowFollowerDoesNotHoldTheRun},
}

// Run runs every conformance test as a parallel subtest of t, named after
// the rule it checks, each on runtimes made with
// runtime.WithEngine(newEngine(t)): one fresh engine per runtime.
func Run(t *testing.T, newEngine NewEngine) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newEngine)
		})
	}
}
