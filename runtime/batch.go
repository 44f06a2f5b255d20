package runtime

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// runBatch admits a batch of calls and executes it.
//
// Admission order (DESIGN.md "Admit"): calls over the model-output limits
// and calls the catalog refuses (deferred, not discovered) get their
// failure without running and cost no tool call; unknown tools become
// tool_unavailable and count as budgeted; an admitted call's payload is
// canonicalized once (tools.CanonicalPayload) — a refused payload is
// answered with invalid_payload, costing no tool call — and from then on
// the canonical form is what is confirmed, recorded and executed; then the
// batch's budgeted calls are checked against MaxToolCalls all together — a
// batch that does not fit is rejected whole and the run finalizes with
// reason tool_cap.
func (r *runner) runBatch(b *batchState, calls []planner.ToolRequest) (RunOutput, *planner.Finalize, bool, error) {
	budgeted := 0
	for _, c := range calls {
		ac := r.admit(c)
		if ac.Budgeted {
			budgeted++
		}
		b.Calls = append(b.Calls, ac)
	}
	if limit := r.agent.reg.Policy.MaxToolCalls; limit > 0 && budgeted > 0 && r.st.ToolCalls+budgeted > limit && b.Finalizing == "" {
		capped := &planner.ToolFailure{
			Code:     toolcall.KindToolCap,
			Message:  fmt.Sprintf("Not run: this batch needs %d tool calls but only %d of %d remain.", budgeted, limit-r.st.ToolCalls, limit),
			Recovery: planner.RecoveryFinish,
		}
		for _, ac := range b.Calls {
			// Calls the catalog refused keep their refusal: it was decided
			// before the cap.
			if ac.Failure == nil || ac.Budgeted {
				ac.Failure = capped
			}
			r.rejectCall(ac)
		}
		return RunOutput{}, &planner.Finalize{Reason: planner.ReasonToolCap}, false, nil
	}
	r.st.ToolCalls += budgeted
	return r.continueBatch(b)
}

// admit decides one call: its failure when it may not run, otherwise its
// ident, wire name and canonical payload.
func (r *runner) admit(c planner.ToolRequest) admittedCall {
	ac := admittedCall{CallID: c.CallID, Wire: c.Name, Payload: c.Payload}
	adm := r.snapshot.Admit(c.Name, c.Ident)
	if f := r.refused[c.CallID]; f != nil {
		ac.Ident = cmp.Or(adm.Ident, c.Ident)
		ac.Failure = f
		return ac
	}
	switch adm.Verdict {
	case catalog.Refused:
		ac.Ident = adm.Ident
		ac.Failure = toolcall.NotInActiveSet(adm.Message)
		return ac
	case catalog.Unknown:
		ac.Ident = c.Ident
		ac.Budgeted = true
		ac.Failure = &toolcall.Failure{Code: toolcall.KindUnavailable, Message: adm.Message, Recovery: toolcall.RecoveryReplan}
		return ac
	}
	ac.Ident = adm.Ident
	if ac.Wire == "" {
		ac.Wire, _ = r.snapshot.Wire(adm.Ident)
	}
	ac.Contract = r.contracts[c.CallID]
	t, ok := r.rt.target(adm.Ident, ac.Contract)
	if !ok {
		ac.Budgeted = true
		return ac
	}
	canonical, f := toolcall.Canonicalize(t.spec, c.Payload, r.agent.reg.Policy.ModelOutput.payload())
	if f != nil {
		ac.Failure = f
		return ac
	}
	ac.Payload = canonical
	ac.Budgeted = !t.spec.IsBookkeeping()
	if ac.Agent = t.toolset.reg.Agent; ac.Agent != "" {
		ac.ResultSchema = t.spec.Result.Schema
	}
	r.recordCanonical(c.CallID, c.Name, canonical)
	return ac
}

// recordCanonical puts a call's canonical payload in the transcript's tool
// call, so the conversation records what runs, not the model's spelling.
// wire is the name of the tool called.
func (r *runner) recordCanonical(callID, wire string, payload json.RawMessage) {
	for i := len(r.st.Transcript) - 1; i >= r.st.TurnStart; i-- {
		for _, c := range toolCallParts(r.st.Transcript[i : i+1]) {
			if c.ID == callID {
				setCallPayload(c, wire, payload)
				return
			}
		}
	}
}

// setCallPayload sets the arguments of part, a transcript's tool call, to
// payload, the arguments of the tool named wire. A call the model made
// through call_tool (portable search's call-tool mode: the planner got the
// call of the tool it names, the transcript keeps the call as the model
// made it) keeps its envelope, {"name": wire, "arguments": payload}: the
// next request replays it to the model as a call of call_tool.
func setCallPayload(part *model.ToolCall, wire string, payload json.RawMessage) {
	if part.Name != model.CallToolName || wire == "" || wire == model.CallToolName {
		part.Payload = slices.Clone(payload)
		return
	}
	if !json.Valid(payload) {
		payload = json.RawMessage(`{}`)
	}
	env, _ := json.Marshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{wire, payload}) // a string and valid JSON always encode
	part.Payload = env
}

// continueBatch executes the batch's remaining calls in order. A call that
// needs confirmation (or clarification) suspends the run with the rest of
// the batch saved in the checkpoint.
func (r *runner) continueBatch(b *batchState) (RunOutput, *planner.Finalize, bool, error) {
	r.st.Batch = b
	for b.Next < len(b.Calls) {
		ac := &b.Calls[b.Next]
		if ac.Failure != nil {
			r.rejectCall(*ac)
			b.Outcome.Rejected = true
			b.Next++
			continue
		}
		if item, ok := r.needsConfirmation(ac); ok {
			return r.suspend([]PendingItem{item})
		}
		if ac.Agent != "" {
			pending, err := r.runChild(b, ac, nil)
			if err != nil {
				return RunOutput{}, nil, false, err
			}
			if pending != nil {
				return r.suspend(pending)
			}
			b.Next++
			continue
		}
		susp, err := r.execute(b, ac)
		if err != nil {
			return RunOutput{}, nil, false, err
		}
		if susp != nil {
			return r.suspend([]PendingItem{*susp})
		}
		b.Next++
	}
	r.st.Batch = nil
	return r.afterBatch(b)
}

// afterBatch applies the rules that follow an executed batch: terminal
// tools end the run, successful budgeted work resets the recovery count,
// rejected results cost a recovery turn.
func (r *runner) afterBatch(b *batchState) (RunOutput, *planner.Finalize, bool, error) {
	o := b.Outcome
	if o.Terminal != nil {
		reason := planner.ReasonTerminalTool
		return r.complete(reason, nil, o.Terminal), nil, true, nil
	}
	if b.Finalizing != "" {
		return r.complete(b.Finalizing, b.Final, nil), nil, true, nil
	}
	if o.MissingFinalize {
		return RunOutput{}, &planner.Finalize{Reason: planner.ReasonMissingFields}, false, nil
	}
	if o.Finish {
		return RunOutput{}, &planner.Finalize{Reason: planner.ReasonToolFailure}, false, nil
	}
	if o.BookkeepingFailed && !o.Rejected {
		// A failed bookkeeping call opens another planner turn, even when
		// the plan also answered, and costs no recovery turn. The safety
		// net ends a run whose model keeps failing bookkeeping calls.
		r.st.BookkeepingFailures++
		if r.st.BookkeepingFailures > maxBookkeepingFailureTurns {
			return RunOutput{}, &planner.Finalize{Reason: planner.ReasonRecoveryExhausted}, false, nil
		}
		return RunOutput{}, nil, false, nil
	}
	r.st.BookkeepingFailures = 0
	if b.Final != nil {
		return r.complete(planner.ReasonFinalResponse, b.Final, nil), nil, true, nil
	}
	if b.FinalToolResult != nil {
		return r.complete(planner.ReasonFinalToolResult, nil, b.FinalToolResult), nil, true, nil
	}
	if b.Await != nil {
		return r.await(b.Await)
	}
	if o.SuccessBudgeted {
		r.st.Recovery = 0
	} else if o.Rejected {
		if r.st.Recovery >= r.agent.reg.Policy.maxRecovery() {
			return RunOutput{}, &planner.Finalize{Reason: planner.ReasonRecoveryExhausted}, false, nil
		}
		r.st.Recovery++
	}
	return RunOutput{}, nil, false, nil
}

// maxBookkeepingFailureTurns bounds consecutive turns whose only failures
// are bookkeeping calls, which cost no recovery turn.
const maxBookkeepingFailureTurns = 8

// rejectCall records the result of a call answered without running
// (refused, unknown, over the cap): transcript, event and compact outputs.
func (r *runner) rejectCall(ac admittedCall) {
	r.appendResult(ac.CallID, ac.Wire, nil, ac.Failure)
	r.emitCall(ac.CallID, ToolResultReceived{Tool: ac.Ident, Result: ac.Failure.JSON(), Failure: ac.Failure})
	r.st.Outputs = append(r.st.Outputs, planner.ToolOutput{CallID: ac.CallID, Name: ac.Ident, Result: ac.Failure.JSON(), Failure: ac.Failure})
}

// appendResult adds a tool result to the transcript.
func (r *runner) appendResult(callID, wire string, content []byte, failure *planner.ToolFailure) {
	if failure != nil {
		content = failure.JSON()
	}
	r.st.Transcript = append(r.st.Transcript, model.Message{Role: model.RoleTool, Parts: []model.Part{{
		Kind:       model.PartToolResult,
		ToolResult: &model.ToolResult{CallID: callID, Name: wire, Content: content, IsError: failure != nil},
	}}})
}

// isBookkeepingOnly reports whether every call resolves to a bookkeeping,
// non-terminal tool.
func (r *runner) isBookkeepingOnly(calls []planner.ToolRequest) bool {
	if len(calls) == 0 {
		return false
	}
	for _, c := range calls {
		spec, ok := r.admittedSpec(c)
		if !ok || !spec.IsBookkeeping() || spec.TerminalRun {
			return false
		}
	}
	return true
}

// allTerminal reports whether every call resolves to a terminal tool.
func (r *runner) allTerminal(calls []planner.ToolRequest) bool {
	for _, c := range calls {
		spec, ok := r.admittedSpec(c)
		if !ok || !spec.TerminalRun {
			return false
		}
	}
	return true
}

func (r *runner) admittedSpec(c planner.ToolRequest) (tools.ToolSpec, bool) {
	adm := r.snapshot.Admit(c.Name, c.Ident)
	if adm.Verdict != catalog.Admitted {
		return tools.ToolSpec{}, false
	}
	t, ok := r.rt.target(adm.Ident, r.contracts[c.CallID])
	if !ok {
		return tools.ToolSpec{}, false
	}
	return t.spec, true
}

// complete ends the run.
func (r *runner) complete(reason planner.TerminationReason, final *planner.FinalResponse, result *planner.ToolResult) RunOutput {
	out := r.output(StatusCompleted)
	out.Reason = reason
	out.Final = final
	out.FinalToolResult = result
	// The completion is on record before the session is saved: a run log
	// that cannot record it fails the run before the session changes.
	r.emit(RunCompleted{Reason: reason})
	if !r.st.OneShot && r.st.SessionID != "" {
		// A failed save leaves the session as it was; the output still
		// carries the run's messages, and says why (RunOutput.SessionNotSaved).
		saved, err := r.record(recordInput{SessionID: r.st.SessionID, Transcript: r.st.Transcript, SessionVersion: r.st.SessionVersion})
		if err != nil {
			saved = recordOutput{NotSaved: err.Error()}
		}
		out.SessionNotSaved, out.SessionConflict = saved.NotSaved, saved.Conflict
	}
	return out
}

// output builds the run output common to completion and suspension.
func (r *runner) output(status RunStatus) RunOutput {
	return RunOutput{
		RunID:     r.st.RunID,
		SessionID: r.st.SessionID,
		TurnID:    r.st.TurnID,
		Agent:     r.st.Agent,
		Status:    status,
		Messages:  r.st.turnMessages(),
		Timeline:  r.st.Timeline,
		Evidence:  r.st.Evidence,
		ToolCalls: r.st.ToolCalls,
		Usage:     r.st.Usage,
	}
}
