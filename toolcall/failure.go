package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Kind classifies a failed call. The model reads it (the "error" member of
// a failure's JSON) beside advice that differs per kind, so code matches
// failures by Kind, never by message text. The kinds below are the ones
// Quiver produces; a toolset may define its own (a kind is lower snake
// case: [ValidKind]).
type Kind string

// The failure kinds of one tool call.
const (
	// KindInvalidPayload: the arguments do not match the tool's schema, or
	// were refused before parsing (too large, too deep, not JSON).
	KindInvalidPayload Kind = "invalid_payload"
	// KindMissingFields: the arguments lack only required fields.
	KindMissingFields Kind = "missing_fields"
	// KindInjectionFailed: a field the runtime injects had no value (a run
	// label was not supplied); the run cannot fix it, so it finishes.
	KindInjectionFailed Kind = "injection_failed"
	// KindToolError: the executor failed.
	KindToolError Kind = "tool_error"
	// KindInvalidResult: the result breaks the tool's own contract.
	KindInvalidResult Kind = "invalid_result"
	// KindMissingBounds: a bounded tool returned no bounds.
	KindMissingBounds Kind = "missing_bounds"
	// KindUnavailable: the tool is not available (any more); nothing ran.
	KindUnavailable Kind = "tool_unavailable"
	// KindTimeout: the tool did not finish within its time limit.
	KindTimeout Kind = "timeout"
	// KindNotInActiveSet: a deferred tool called before a search found it.
	KindNotInActiveSet Kind = "not_in_active_set"
	// KindNotPermitted: the caller may not call the tool (outside its
	// scope, no valid credential, a confirmation the caller cannot give).
	KindNotPermitted Kind = "not_permitted"
	// KindSourceNotAllowed: the registry source of a saved call is no
	// longer allowed for the run.
	KindSourceNotAllowed Kind = "source_not_allowed"
	// KindDenied: a person denied the call.
	KindDenied Kind = "denied"
	// KindCallNotAdmitted: the registry handed the call to no provider.
	KindCallNotAdmitted Kind = "call_not_admitted"
	// KindAdmissionConflict: the registration the call was accepted with
	// was replaced.
	KindAdmissionConflict Kind = "admission_conflict"
	// KindOutcomeUnknown: the provider stopped before reporting; the call
	// may or may not have run and is not repeated.
	KindOutcomeUnknown Kind = "outcome_unknown"
	// KindResultExpired: the call ran but its result is no longer kept.
	KindResultExpired Kind = "result_expired"
	// KindOverloaded: the providers are overloaded.
	KindOverloaded Kind = "overloaded"
	// KindKeyLimit: the caller (its key or credential) has as many calls
	// open as it may have at once; nothing ran, and a call is admitted
	// again once one of its calls finishes.
	KindKeyLimit Kind = "key_limit"
	// KindToolCap: the batch was refused whole by the run's tool-call
	// caps.
	KindToolCap Kind = "tool_cap"
	// KindNoContinuation: a ContinueWith partner called without a cursor
	// and no page to continue.
	KindNoContinuation Kind = "no_continuation"
	// KindAmbiguousContinuation: a partner called without a cursor while
	// several pages could continue.
	KindAmbiguousContinuation Kind = "ambiguous_continuation"
	// KindRejectedOutput: the model's final answer was refused (a
	// terminal tool's arguments, a structured answer).
	KindRejectedOutput Kind = "rejected_output"
	// KindDiscarded: the run finished before the call could run.
	KindDiscarded Kind = "discarded"
	// KindDepthLimit: the call would run an agent as a tool deeper than
	// the run policy allows (RunPolicy.MaxAgentDepth); nothing ran.
	KindDepthLimit Kind = "depth_limit"
)

// Kinds lists the kinds Quiver produces, in the order declared.
var Kinds = []Kind{
	KindInvalidPayload, KindMissingFields, KindInjectionFailed, KindToolError,
	KindInvalidResult, KindMissingBounds, KindUnavailable, KindTimeout,
	KindNotInActiveSet, KindNotPermitted, KindSourceNotAllowed, KindDenied,
	KindCallNotAdmitted, KindAdmissionConflict, KindOutcomeUnknown,
	KindResultExpired, KindOverloaded, KindKeyLimit, KindToolCap, KindNoContinuation,
	KindAmbiguousContinuation, KindRejectedOutput, KindDiscarded, KindDepthLimit,
}

// ValidKind reports whether k is a kind's shape: 1 to 64 of a-z, 0-9 and
// '_', starting with a letter.
func ValidKind(k Kind) bool {
	if len(k) == 0 || len(k) > 64 || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for _, c := range []byte(k) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// Recovery says what a failed call asks of the planner.
type Recovery string

// The recovery actions.
const (
	// RecoveryCorrectCall: fix the arguments and call again.
	RecoveryCorrectCall Recovery = "correct_call"
	// RecoveryReplan: plan again without this tool.
	RecoveryReplan Recovery = "replan"
	// RecoveryFinish: stop and answer.
	RecoveryFinish Recovery = "finish"
)

// Valid reports whether r is one of the recovery actions.
func (r Recovery) Valid() bool {
	switch r {
	case RecoveryCorrectCall, RecoveryReplan, RecoveryFinish:
		return true
	}
	return false
}

// Failure is a failed call, with the message the model reads. It is an
// error: an executor returns one ([Fail]) to fail a call with a kind, and
// [errors.As] finds it through wrapping.
type Failure struct {
	// Code is the failure's kind.
	Code     Kind     `json:"code"`
	Message  string   `json:"message"`
	Recovery Recovery `json:"recovery"`
}

// Fail returns a failure of kind with the message the model reads and the
// recovery it asks for ([RecoveryReplan] when empty).
func Fail(kind Kind, recovery Recovery, format string, args ...any) *Failure {
	if recovery == "" {
		recovery = RecoveryReplan
	}
	return &Failure{Code: kind, Recovery: recovery, Message: fmt.Sprintf(format, args...)}
}

// Error implements error.
func (f *Failure) Error() string { return string(f.Code) + ": " + f.Message }

// JSON is the failure as the model reads it:
// {"error": kind, "message": …, "recovery": …}.
func (f *Failure) JSON() json.RawMessage {
	b, err := json.Marshal(struct {
		Error    Kind     `json:"error"`
		Message  string   `json:"message"`
		Recovery Recovery `json:"recovery"`
	}{f.Code, f.Message, f.Recovery})
	if err != nil {
		panic("toolcall: marshal of a failure's strings failed: " + err.Error())
	}
	return b
}

// AsFailure returns the failure err is or wraps, or nil.
func AsFailure(err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// withRecovery returns a copy of f whose empty recovery is RecoveryReplan.
func (f Failure) withRecovery() *Failure {
	if f.Recovery == "" {
		f.Recovery = RecoveryReplan
	}
	return &f
}
