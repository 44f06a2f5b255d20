package runtime

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/render"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// needsConfirmation reports whether an undecided call needs confirmation,
// and the pending item asking for it.
func (r *runner) needsConfirmation(ac *admittedCall) (PendingItem, bool) {
	if ac.Decided != nil {
		return PendingItem{}, false
	}
	spec, ok := r.confirmationSpec(ac)
	if !ok {
		return PendingItem{}, false
	}
	full := r.callSpec(ac)
	full.Confirmation = &spec
	prompt, err := render.ConfirmationPrompt(full, ac.Payload)
	if err != nil {
		prompt = fmt.Sprintf("Approve %s with %s? (the prompt template failed: %v)", full.Title, ac.Payload, err)
	}
	title := spec.Title
	if title == "" {
		title = full.Title
	}
	return PendingItem{Kind: PendingConfirmation, CallID: ac.CallID, Tool: ac.Ident, Title: title, Prompt: prompt,
		Payload: ac.Payload, PayloadDigest: tools.PayloadDigest(ac.Payload)}, true
}

// callSpec returns the spec a call runs with, or a spec naming only its
// tool when there is none any more (a tool unregistered since, whose
// confirmation WithToolConfirmation still asks for).
func (r *runner) callSpec(ac *admittedCall) tools.ToolSpec {
	if t, ok := r.rt.target(ac.Ident, ac.Contract); ok {
		return t.spec
	}
	return tools.ToolSpec{Name: ac.Ident, Title: string(ac.Ident)}
}

// confirmationSpec returns the confirmation a tool needs: declared, or
// enabled at run time with WithToolConfirmation.
func (r *runner) confirmationSpec(ac *admittedCall) (tools.ConfirmationSpec, bool) {
	r.rt.mu.RLock()
	spec, ok := r.rt.confirm[ac.Ident]
	r.rt.mu.RUnlock()
	if ok {
		return spec, true
	}
	if t, ok := r.rt.target(ac.Ident, ac.Contract); ok && t.spec.Confirmation != nil {
		return *t.spec.Confirmation, true
	}
	return tools.ConfirmationSpec{}, false
}

// await suspends the run for a planner's await.
func (r *runner) await(a *planner.Await) (RunOutput, *planner.Finalize, bool, error) {
	if !r.agent.reg.Policy.InterruptsAllowed {
		return r.rejectOutput("this agent may not pause for input (InterruptsAllowed is off); answer with what you have")
	}
	kind := PendingClarification
	if a.Kind == planner.AwaitConfirmation {
		kind = PendingConfirmation
	}
	r.st.Awaiting = a.Kind
	return r.suspend([]PendingItem{{Kind: kind, Prompt: a.Prompt, Fields: a.Fields}})
}

// suspend ends the workflow with a checkpoint; Continue resumes it.
func (r *runner) suspend(items []PendingItem) (RunOutput, *planner.Finalize, bool, error) {
	r.st.Elapsed = r.active()
	pending := pendingState{Items: items}
	// The suspension is on record (and its sequence number in the
	// checkpoint) before the checkpoint is stored: a continuation, which
	// may start at once in another process, records after it.
	r.emit(Awaiting{Pending: items})
	if !r.nested {
		// A child's checkpoint is its parent's to keep (runState.Child).
		if _, err := r.record(recordInput{State: r.st, Suspended: &pending}); err != nil {
			return RunOutput{}, nil, false, err
		}
	}
	out := r.output(StatusSuspended)
	out.Suspension = &RunSuspension{RunID: r.st.RunID, Pending: items}
	return out, nil, true, nil
}

// pendingState is what a checkpoint waits for.
type pendingState struct {
	Items []PendingItem `json:"items"`
}

// resume applies the answer to the first pending item of a continued run
// and carries on where it stopped.
func (r *runner) resume(resp PendingInputResponse) (RunOutput, bool, error) {
	b := r.st.Batch
	if b != nil && b.Next < len(b.Calls) && r.st.Child != nil {
		// The answer is the suspended child's: it continues, and the
		// batch after it once it is done.
		ac := &b.Calls[b.Next]
		pending, err := r.runChild(b, ac, &resp)
		if err != nil {
			return RunOutput{}, true, err
		}
		if pending != nil {
			out, _, _, err := r.suspend(pending)
			return out, true, err
		}
		b.Next++
		out, finalize, done, err := r.continueBatch(b)
		if done || err != nil {
			return out, true, err
		}
		out, err = r.loop(finalize)
		return out, true, err
	}
	if b != nil && b.Next < len(b.Calls) {
		ac := &b.Calls[b.Next]
		switch {
		case resp.Confirmation != nil:
			approved := resp.Confirmation.Approved
			ac.Decided = &approved
			digest := tools.PayloadDigest(ac.Payload)
			r.st.Decided = append(r.st.Decided, decidedCall{CallID: ac.CallID, Digest: digest})
			r.emitCall(ac.CallID, ConfirmationDecided{Tool: ac.Ident, PayloadDigest: digest, Approved: approved})
			if !approved {
				spec := r.callSpec(ac)
				if c, ok := r.confirmationSpec(ac); ok {
					spec.Confirmation = &c
				}
				denied, err := render.DeniedResult(spec, ac.Payload)
				if err != nil {
					denied = toolcall.Denied().JSON()
				}
				r.appendResult(ac.CallID, ac.Wire, denied, nil)
				r.emitCall(ac.CallID, ToolResultReceived{Tool: ac.Ident, Result: denied})
				r.st.Outputs = append(r.st.Outputs, planner.ToolOutput{CallID: ac.CallID, Name: ac.Ident, Result: denied})
				b.Next++
			}
		case resp.Clarification != nil && len(resp.Clarification.Fields) > 0:
			// checkAnswer canonicalized the completed payload already.
			completed, err := r.rt.clarifiedPayload(ac, resp.Clarification.Fields)
			if err != nil {
				return RunOutput{}, true, err
			}
			if string(completed) != string(ac.Payload) {
				// The payload changed: a confirmation given before must be
				// given again for what will now run.
				ac.Decided = nil
			}
			ac.Payload = completed
		default:
			// RunHandle.Wait prefixes the run.
			return RunOutput{}, true, fmt.Errorf("it waits for a %s; answer it with PendingInputResponse.%s", pendingKindOf(r, ac), pendingFieldOf(r, ac))
		}
		out, finalize, done, err := r.continueBatch(b)
		if done || err != nil {
			return out, true, err
		}
		out, err = r.loop(finalize)
		return out, true, err
	}
	// A planner's await: the answer joins the conversation as a user turn.
	text, err := awaitAnswer(r.st, resp)
	if err != nil {
		return RunOutput{}, true, err
	}
	r.st.Awaiting = ""
	r.st.Transcript = append(r.st.Transcript, userText(text))
	return RunOutput{}, false, nil
}

// awaitAnswer turns the answer to a planner's await into the user message
// the planner reads: the clarification's text, or the decision on a
// confirmation the planner asked for. Its error has no prefix: Continue
// (checkAnswer) and RunHandle.Wait add the run's.
func awaitAnswer(st *runState, resp PendingInputResponse) (string, error) {
	if st.Awaiting == planner.AwaitConfirmation {
		switch {
		case resp.Confirmation != nil && resp.Confirmation.Approved:
			return "Approved.", nil
		case resp.Confirmation != nil:
			return "Denied.", nil
		}
		return "", errors.New("it waits for a confirmation; continue it with PendingInputResponse.Confirmation")
	}
	if resp.Clarification != nil && resp.Clarification.Text != "" {
		return resp.Clarification.Text, nil
	}
	return "", errors.New("it waits for an answer; continue it with PendingInputResponse.Clarification.Text")
}

// checkAnswer reports, before a continuation starts, whether resp answers
// the first pending item of the suspended run st the way resume applies
// it, so that a wrong answer fails Continue and leaves the run suspended.
func (rt *Runtime) checkAnswer(st *runState, resp PendingInputResponse) error {
	if st.Child != nil {
		// The first pending item is the suspended child's.
		return rt.checkAnswer(&st.Child.State, resp)
	}
	if b := st.Batch; b != nil && b.Next < len(b.Calls) {
		ac := &b.Calls[b.Next]
		r := &runner{rt: rt, st: st}
		kind := pendingKindOf(r, ac)
		var fields map[string]json.RawMessage
		if (kind == "confirmation" && resp.Confirmation == nil) ||
			(kind == "clarification" && (resp.Clarification == nil || json.Unmarshal(resp.Clarification.Fields, &fields) != nil || fields == nil)) {
			return fmt.Errorf("runtime: run %s waits for a %s of call %s (%s); answer it with PendingInputResponse.%s", st.RunID, kind, ac.CallID, ac.Ident, pendingFieldOf(r, ac))
		}
		if kind == "confirmation" {
			return checkDecision(st, ac, resp.Confirmation)
		}
		if _, err := rt.clarifiedPayload(ac, resp.Clarification.Fields); err != nil {
			return fmt.Errorf("runtime: run %s: %w", st.RunID, err)
		}
		return nil
	}
	if st.Awaiting == planner.AwaitConfirmation && resp.Confirmation != nil {
		if err := checkDecision(st, nil, resp.Confirmation); err != nil {
			return err
		}
	}
	if _, err := awaitAnswer(st, resp); err != nil {
		return fmt.Errorf("runtime: run %s: %w", st.RunID, err)
	}
	return nil
}

// clarifiedPayload returns ac's payload completed with the fields a
// clarification supplied, canonical: the caller's fields obey the same
// rules as the model's (no injected fields, no case variants, no
// duplicates). Its error has no prefix: Continue (checkAnswer) and
// RunHandle.Wait add the run's.
func (rt *Runtime) clarifiedPayload(ac *admittedCall, fields json.RawMessage) (json.RawMessage, error) {
	t, ok := rt.target(ac.Ident, ac.Contract)
	if !ok {
		return nil, fmt.Errorf("tool %s of call %s is no longer registered", ac.Ident, ac.CallID)
	}
	if _, err := tools.CanonicalPayload(t.spec, fields, tools.PayloadLimits{}); err != nil {
		return nil, fmt.Errorf("clarification of call %s refused: %w", ac.CallID, err)
	}
	completed, err := tools.CanonicalPayload(t.spec, mergeObjects(ac.Payload, fields), tools.PayloadLimits{})
	if err != nil {
		return nil, fmt.Errorf("clarification of call %s refused: %w", ac.CallID, err)
	}
	return completed, nil
}

func pendingKindOf(r *runner, ac *admittedCall) string {
	if _, ok := r.confirmationSpec(ac); ok && ac.Decided == nil {
		return "confirmation"
	}
	return "clarification"
}

func pendingFieldOf(r *runner, ac *admittedCall) string {
	if pendingKindOf(r, ac) == "confirmation" {
		return "Confirmation"
	}
	return "Clarification.Fields"
}

// userText is a user's answer to an await: it continues the run's turn, so
// it is marked not to reset the turn's search budget.
func userText(s string) model.Message {
	m := model.UserMessage(s)
	m.Meta = map[string]json.RawMessage{model.ContinuesTurnMetaKey: json.RawMessage(`true`)}
	return m
}
