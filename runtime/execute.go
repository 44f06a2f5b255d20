package runtime

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/render"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// execute runs one admitted call through the execute activity and records
// its outcome. It returns a pending clarification when the call lacks
// required fields under OnMissingFields("await_clarification").
func (r *runner) execute(b *batchState, ac *admittedCall) (*PendingItem, error) {
	t, ok := r.rt.target(ac.Ident, ac.Contract)
	if !ok {
		r.finishCall(b, ac, tools.ToolSpec{Name: ac.Ident}, failedOutput(toolcall.Unavailable(string(ac.Ident))))
		return nil, nil
	}
	payload, head, headFailure := r.bindContinuation(t, ac.Payload)
	if headFailure != nil {
		r.finishCall(b, ac, t.spec, executeOutput{Failure: headFailure})
		return nil, nil
	}
	if head != nil && head.Contract != nil {
		// A continuation runs with the partner saved by the call that
		// opened the chain, not with what the catalog lists now.
		ac.Contract = head.Contract
		if t, ok = r.rt.target(ac.Ident, ac.Contract); !ok {
			r.finishCall(b, ac, tools.ToolSpec{Name: ac.Ident}, failedOutput(toolcall.Unavailable(string(ac.Ident))))
			return nil, nil
		}
	}
	spec := t.spec
	r.emitCall(ac.CallID, ToolCallScheduled{Tool: ac.Ident, DisplayHint: r.rt.callHint(t, payload), Payload: payload})
	in := executeInput{
		Ident:   ac.Ident,
		CallID:  ac.CallID,
		Payload: payload,
		Meta: tools.CallMeta{
			RunID:            r.st.RunID,
			SessionID:        r.st.SessionID,
			TurnID:           r.st.TurnID,
			ToolCallID:       ac.CallID,
			ParentToolCallID: r.st.ParentCallID,
			ParentRunID:      r.st.ParentRunID,
		},
		Labels:        r.st.Labels,
		ResumeMissing: r.agent.reg.Policy.OnMissingFields == MissingFieldsResume,
		Agent:         r.st.Agent,
		Contract:      ac.Contract,
		Events:        r.st.liveHead(r.st.Step),
	}
	timeout := r.agent.reg.Policy.toolTimeout()
	if rem, ok := r.remaining(); ok && (timeout == 0 || rem < timeout) {
		timeout = max(rem, 1)
	}
	// The call's scheduling is on record before its executor runs: after
	// a crash it is reported outcome_unknown, never run again.
	if err := r.flush(); err != nil {
		return nil, err
	}
	in.EventSeq = r.st.EventSeq
	out, err := engine.ExecuteActivity[executeOutput](r.wctx, activityExecute, engine.ActivityOptions{StartToCloseTimeout: timeout}, in)
	// The call's progress events took the numbers after the workflow's.
	r.afterActivity(out.LastSeq, err != nil)
	if err != nil {
		if r.wctx.Context().Err() != nil {
			return nil, err
		}
		out = failedOutput(toolcall.CouldNotRun(err))
		if errors.Is(err, engine.ErrTimeout) {
			out = failedOutput(toolcall.Timeout(timeout))
		}
	}
	if len(out.Missing) > 0 {
		switch r.agent.reg.Policy.OnMissingFields {
		case MissingFieldsAwaitClarification:
			return &PendingItem{
				Kind:    PendingClarification,
				CallID:  ac.CallID,
				Tool:    ac.Ident,
				Title:   spec.Title,
				Prompt:  "Please provide: " + strings.Join(out.Missing, ", "),
				Payload: payload,
				Fields:  out.Missing,
			}, nil
		case MissingFieldsFinalize:
			b.Outcome.MissingFinalize = true
		}
	}
	r.finishCall(b, ac, spec, out)
	return nil, nil
}

// finishCall records a call's outcome: transcript, events, server data,
// reminders, pagination heads and the batch's outcome.
func (r *runner) finishCall(b *batchState, ac *admittedCall, spec tools.ToolSpec, out executeOutput) {
	content := out.answer()
	r.appendResult(ac.CallID, ac.Wire, content, nil)
	if out.Failure != nil {
		r.st.Transcript[len(r.st.Transcript)-1].Parts[0].ToolResult.IsError = true
	}
	var timeline []planner.ServerData
	for _, sd := range out.ServerData {
		rec := ServerDataRecord{CallID: ac.CallID, Tool: ac.Ident, Data: sd}
		switch sd.Audience {
		case tools.AudienceEvidence:
			r.st.Evidence = append(r.st.Evidence, rec)
		case tools.AudienceInternal:
			// Internal server data serves tool composition only: it is
			// neither stored nor rendered.
		default:
			r.st.Timeline = append(r.st.Timeline, rec)
			timeline = append(timeline, sd)
		}
	}
	r.emitCall(ac.CallID, ToolResultReceived{Tool: ac.Ident, Result: content, Failure: out.Failure, Bounds: out.Bounds, DisplayHint: out.ResultHint, Timeline: timeline})
	if out.Failure == nil && spec.ResultReminder != "" {
		r.st.ResultReminders = append(r.st.ResultReminders, spec.ResultReminder)
	}
	if out.Failure == nil {
		r.advanceHeads(ac.Ident, spec, out.Bounds, explicitCursor(spec, ac), ac.Contract.partnerContract())
	}
	switch {
	case out.Failure != nil && out.Failure.Recovery == planner.RecoveryFinish:
		b.Outcome.Finish = true
	case out.Failure != nil && spec.IsBookkeeping():
		b.Outcome.BookkeepingFailed = true
	case out.Failure != nil:
		b.Outcome.Rejected = true
	case spec.TerminalRun:
		res := planner.ToolResult{Result: content, Bounds: out.Bounds}
		b.Outcome.Terminal = &res
		b.Outcome.TerminalIdent = ac.Ident
	case ac.Budgeted:
		b.Outcome.SuccessBudgeted = true
	}
	// Successful bookkeeping results stay in the transcript and events but
	// are left out of the compact outputs the planner resumes with.
	if out.Failure != nil || !spec.IsBookkeeping() {
		r.st.Outputs = append(r.st.Outputs, planner.ToolOutput{CallID: ac.CallID, Name: ac.Ident, Result: content, Failure: out.Failure})
	}
}

// bindContinuation fills the cursor of a ContinueWith partner called
// without one, from the single active chain head; several heads make the
// no-argument continuation unavailable.
func (r *runner) bindContinuation(t *toolEntry, payload json.RawMessage) (json.RawMessage, *chainHead, *planner.ToolFailure) {
	spec := t.spec
	var heads []chainHead
	for _, h := range r.st.Heads {
		if h.Partner == spec.Name {
			heads = append(heads, h)
		}
	}
	if len(heads) == 0 && !t.continued {
		return payload, nil, nil
	}
	field := partnerCursorField(spec)
	var obj map[string]json.RawMessage
	if json.Unmarshal(payload, &obj) == nil {
		if _, has := obj[field]; has {
			return payload, nil, nil
		}
	}
	switch len(heads) {
	case 0:
		return nil, nil, &planner.ToolFailure{Code: toolcall.KindNoContinuation, Message: "There is no further page to continue: call the listing tool first.", Recovery: planner.RecoveryReplan}
	case 1:
		return mergeObjects(payload, mustJSON(map[string]string{field: heads[0].Cursor})), &heads[0], nil
	default:
		return nil, nil, &planner.ToolFailure{Code: toolcall.KindAmbiguousContinuation, Message: "Several result sets can continue, so continuing without arguments is unavailable: repeat the listing call you want to page through.", Recovery: planner.RecoveryReplan}
	}
}

// partnerCursorField is the payload field a ContinueWith partner receives
// its cursor in.
func partnerCursorField(spec tools.ToolSpec) string {
	if spec.Bounds != nil && spec.Bounds.Cursor != "" {
		return spec.Bounds.Cursor
	}
	return "cursor"
}

// explicitCursor returns the cursor a partner call carried itself (not
// bound by the runtime), or "".
func explicitCursor(spec tools.ToolSpec, ac *admittedCall) string {
	var obj map[string]any
	_ = json.Unmarshal(ac.Payload, &obj)
	c, _ := obj[partnerCursorField(spec)].(string)
	return c
}

// advanceHeads updates the pagination chains after a successful call: a
// source call in a new step replaces the older heads of its partner; a
// partner's page advances or ends the chain whose cursor it used (used, or
// the single head when the runtime bound the cursor).
func (r *runner) advanceHeads(id tools.Ident, spec tools.ToolSpec, bounds *planner.Bounds, used string, partner *savedContract) {
	next := ""
	if bounds != nil {
		next = bounds.NextCursor
	}
	if spec.Bounds != nil && spec.Bounds.ContinueWith != "" {
		partnerID := tools.JoinIdent(id.Toolset(), spec.Bounds.ContinueWith)
		kept := r.st.Heads[:0]
		for _, h := range r.st.Heads {
			if h.Partner != partnerID || h.Step == r.st.Step {
				kept = append(kept, h)
			}
		}
		r.st.Heads = kept
		if next != "" {
			r.st.Heads = append(r.st.Heads, chainHead{Partner: partnerID, Cursor: next, Step: r.st.Step, Contract: partner})
		}
		return
	}
	// A partner page (with or without bounds of its own): advance its head,
	// or end the chain.
	for i, h := range r.st.Heads {
		if h.Partner == id && (used == "" || h.Cursor == used) {
			if next == "" {
				r.st.Heads = append(r.st.Heads[:i], r.st.Heads[i+1:]...)
			} else {
				r.st.Heads[i].Cursor = next
				r.st.Heads[i].Step = r.st.Step
			}
			return
		}
	}
}

// callHint renders the display hint of a scheduled call.
func (rt *Runtime) callHint(t *toolEntry, payload json.RawMessage) string {
	rt.mu.RLock()
	override := rt.overrides[t.spec.Name]
	rt.mu.RUnlock()
	if t.spec.CallHintTemplate == "" && override == "" {
		return t.spec.Title
	}
	var typed any
	if dec := t.toolset.reg.DecodePayload; dec != nil {
		if v, err := dec(t.spec.Name, payload); err == nil {
			typed = v
		}
	} else {
		var m map[string]any
		if json.Unmarshal(payload, &m) == nil {
			typed = m
		}
	}
	return render.CallHint(t.spec, typed, override)
}

// mergeObjects returns a with b's keys set (both JSON objects; a non-object
// a is replaced).
func mergeObjects(a, b json.RawMessage) json.RawMessage {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || ma == nil {
		ma = map[string]json.RawMessage{}
	}
	if json.Unmarshal(b, &mb) != nil {
		return a
	}
	for k, v := range mb {
		ma[k] = v
	}
	return mustJSON(ma)
}

func mustJSON(v any) json.RawMessage {
	b, err := engine.Marshal(v)
	if err != nil {
		panic("runtime: marshal of plain JSON values failed: " + err.Error())
	}
	return b
}
