package runtime

import (
	"errors"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/tools"
)

// ConfirmationDecision approves or denies one pending call. It is bound to
// the call and to the payload its prompt showed: a decision naming another
// call, carrying another payload's digest, or answering a call already
// decided is refused with a *DecisionError, and the run stays suspended.
// Build it with [PendingItem.Approve] or [PendingItem.Deny].
type ConfirmationDecision struct {
	// CallID is the decided call: [PendingItem.CallID]. Empty only when
	// answering a planner's own confirmation request, which has no call.
	CallID string `json:"call_id,omitempty"`
	// PayloadDigest is [PendingItem.PayloadDigest]: the digest of the
	// canonical payload the prompt rendered.
	PayloadDigest string `json:"payload_digest,omitempty"`
	// Approved approves the call; false denies it.
	Approved bool `json:"approved"`
}

// Approve returns the answer approving p, bound to its call and payload.
func (p PendingItem) Approve() PendingInputResponse { return p.decide(true) }

// Deny returns the answer denying p, bound to its call and payload.
func (p PendingItem) Deny() PendingInputResponse { return p.decide(false) }

func (p PendingItem) decide(approved bool) PendingInputResponse {
	return PendingInputResponse{Confirmation: &ConfirmationDecision{CallID: p.CallID, PayloadDigest: p.PayloadDigest, Approved: approved}}
}

// ErrDecisionRefused is matched ([errors.Is]) by every *DecisionError.
var ErrDecisionRefused = errors.New("runtime: confirmation decision refused")

// DecisionProblem says why a confirmation decision was refused.
type DecisionProblem string

// The decision problems.
const (
	// DecisionOtherCall: the decision names a call other than the one
	// pending (or none).
	DecisionOtherCall DecisionProblem = "other_call"
	// DecisionPayloadChanged: the digest is not the pending payload's: the
	// decision was made on something the prompt did not show.
	DecisionPayloadChanged DecisionProblem = "payload_changed"
	// DecisionAlreadyDecided: the call, with that payload, was decided
	// already in this run (a replayed decision).
	DecisionAlreadyDecided DecisionProblem = "already_decided"
)

// DecisionError reports a confirmation decision that does not answer the
// pending confirmation. Nothing ran; the run is still suspended on the
// pending call.
type DecisionError struct {
	// RunID is the suspended run.
	RunID string
	// Pending is the call waiting for a decision ("" for a planner's
	// confirmation request).
	Pending string
	// Decision is the call the decision named.
	Decision string
	// Problem says what does not match.
	Problem DecisionProblem
}

// Error says what does not match and how to answer.
func (e *DecisionError) Error() string {
	var why string
	switch e.Problem {
	case DecisionAlreadyDecided:
		why = fmt.Sprintf("call %q was already decided with that payload", e.Decision)
	case DecisionPayloadChanged:
		why = fmt.Sprintf("its payload digest is not that of the payload shown for call %q", e.Pending)
	default:
		why = fmt.Sprintf("it names call %q but call %q is pending", e.Decision, e.Pending)
	}
	return fmt.Sprintf("runtime: run %s: confirmation decision refused: %s; answer the pending item with PendingItem.Approve or Deny", e.RunID, why)
}

// Is reports whether target is [ErrDecisionRefused].
func (e *DecisionError) Is(target error) bool { return target == ErrDecisionRefused }

// decidedCall is a confirmation decided in this run: its call and the
// digest of the payload it was decided on.
type decidedCall struct {
	CallID string `json:"call_id"`
	Digest string `json:"digest"`
}

// checkDecision reports whether d answers the confirmation pending for
// call ac (nil for a planner's own request) of run st.
func checkDecision(st *runState, ac *admittedCall, d *ConfirmationDecision) error {
	pending, digest := "", ""
	if ac != nil {
		pending, digest = ac.CallID, tools.PayloadDigest(ac.Payload)
	}
	if d.CallID == pending && d.PayloadDigest == digest {
		// It answers exactly what is pending, even when a provider that
		// reuses call ids asked for the same call and payload before.
		return nil
	}
	e := &DecisionError{RunID: st.RunID, Pending: pending, Decision: d.CallID}
	switch {
	case d.CallID != "" && slices.Contains(st.Decided, decidedCall{CallID: d.CallID, Digest: d.PayloadDigest}):
		e.Problem = DecisionAlreadyDecided
	case d.CallID != pending:
		e.Problem = DecisionOtherCall
	default:
		e.Problem = DecisionPayloadChanged
	}
	return e
}
