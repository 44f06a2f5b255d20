package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// Agents called as tools: a call of an agent toolset's tool runs the
// toolset's agent as a child run, a child workflow of the parent's on the
// engine (one deterministic workflow per run, linked into one execution
// tree by the events' parent ids). The call's canonical payload is the
// child's user message; the child's final answer, adapted to the tool's
// result contract (childResult), is the call's result, checked by the
// tool-call pipeline's pure result step (toolcall.Shape). Calls of a batch
// run one after another, agent tools included.

// childCheckpoint is a suspended child run, kept in its parent's state:
// the parent's suspension record holds it, and Continue on the parent
// resumes it with the answer.
type childCheckpoint struct {
	// CallID is the parent's call that started the child.
	CallID string `json:"call_id"`
	// State is the child's state when it suspended.
	State runState `json:"state"`
}

// childInput starts or continues a child run.
type childInput struct {
	State  runState              `json:"state"`
	Resume *PendingInputResponse `json:"resume,omitempty"`
}

// childOutput is a child run's output and, when it suspended, its state:
// the checkpoint its parent keeps.
type childOutput struct {
	Out   RunOutput `json:"out"`
	State *runState `json:"state,omitempty"`
}

// childWorkflow runs one segment of a child run: the run workflow, except
// that a suspension hands its state to the parent instead of storing it.
func (rt *Runtime) childWorkflow(wctx engine.WorkflowContext, in childInput) (childOutput, error) {
	a, err := rt.agent(in.State.Agent)
	if err != nil {
		return childOutput{}, err
	}
	r := &runner{rt: rt, wctx: wctx, agent: a, st: &in.State, segmentStart: wctx.Now(), nested: true}
	r.emit(RunStarted{Continued: in.Resume != nil})
	out, err := r.end(r.segment(in.Resume))
	if err != nil {
		return childOutput{}, err
	}
	co := childOutput{Out: out}
	if out.Status == StatusSuspended {
		co.State = r.st
	}
	return co, nil
}

// runChild runs (or, with resume, continues) the child run of ac, a call
// of an agent toolset, and records the call's outcome. It returns the
// child's pending items when the child suspended: the parent suspends
// with them, the child's state in its checkpoint.
func (r *runner) runChild(b *batchState, ac *admittedCall, resume *PendingInputResponse) ([]PendingItem, error) {
	t, ok := r.rt.tool(ac.Ident)
	if !ok {
		r.st.Child = nil
		r.finishCall(b, ac, tools.ToolSpec{Name: ac.Ident}, failedOutput(toolcall.Unavailable(string(ac.Ident))))
		return nil, nil
	}
	spec, err := admittedContract(t.spec, ac)
	if err != nil {
		r.st.Child = nil
		r.finishCall(b, ac, t.spec, failedOutput(toolcall.InvalidResult(err)))
		return nil, nil
	}
	var in childInput
	if resume != nil {
		in = childInput{State: r.st.Child.State, Resume: resume}
	} else {
		st, f := r.childState(ac)
		if f != nil {
			r.finishCall(b, ac, spec, failedOutput(f))
			return nil, nil
		}
		in = childInput{State: st}
		r.emitCall(ac.CallID, ToolCallScheduled{Tool: ac.Ident, DisplayHint: r.rt.callHint(t, ac.Payload), Payload: ac.Payload})
	}
	var opts engine.ChildOptions
	if rem, ok := r.remaining(); ok {
		// The child gets what the parent's budget has left (its own
		// finalizer included): past it, the engine stops it.
		in.State.BudgetCap = max(rem, time.Millisecond)
		opts.Timeout = in.State.BudgetCap + r.rt.agentGrace(in.State.Agent)
	}
	if err := r.flush(); err != nil {
		return nil, err
	}
	id := in.State.RunID + "#" + fmt.Sprint(in.State.EventSeq)
	co, err := engine.ExecuteChild[childOutput](r.wctx, id, workflowChild, opts, in)
	if err != nil {
		if r.wctx.Context().Err() != nil {
			return nil, err // the parent is cancelled: so is the child
		}
		r.st.Child = nil
		r.finishCall(b, ac, spec, failedOutput(childFailure(in.State.Agent, err, opts.Timeout)))
		return nil, nil
	}
	// The child's tokens are the parent's too.
	r.st.Usage = r.st.Usage.Add(co.Out.Usage)
	r.emitCall(ac.CallID, UsageReported{Usage: co.Out.Usage})
	if co.Out.Status == StatusSuspended && co.State != nil && co.Out.Suspension != nil {
		r.st.Child = &childCheckpoint{CallID: ac.CallID, State: *co.State}
		return co.Out.Suspension.Pending, nil
	}
	r.st.Child = nil
	r.finishCall(b, ac, spec, r.rt.output(t, childOutcome(spec, co.Out)))
	return nil, nil
}

// childState is the state a new child run of ac starts with, or the
// failure refusing it (the depth limit).
func (r *runner) childState(ac *admittedCall) (runState, *toolcall.Failure) {
	a, err := r.rt.agent(ac.Agent)
	if err != nil {
		return runState{}, toolcall.Fail(toolcall.KindUnavailable, toolcall.RecoveryReplan,
			"Not run: tool %s runs agent %q, which is not registered on this runtime; nothing ran.", ac.Ident, ac.Agent)
	}
	limit := r.st.MaxDepth
	if r.st.Depth == 0 {
		limit = r.agent.reg.Policy.maxAgentDepth()
	}
	depth := r.st.Depth + 1
	if depth > limit {
		return runState{}, toolcall.Fail(toolcall.KindDepthLimit, toolcall.RecoveryReplan,
			"Not run: tool %s runs agent %q as a child run, %d levels below the first run, deeper than the run policy allows (%d, RunPolicy.MaxAgentDepth); nothing ran. Do the work without this tool.",
			ac.Ident, ac.Agent, depth, limit)
	}
	runID := r.st.RunID + "/" + ac.CallID
	st := runState{
		RunID: runID, Agent: ac.Agent, Labels: r.st.Labels,
		ParentRunID: r.st.RunID, ParentCallID: ac.CallID,
		Depth: depth, MaxDepth: min(limit, depth+a.reg.Policy.maxAgentDepth()),
	}
	if r.st.SessionID != "" {
		// Its own session, named after the parent's and the call.
		st.SessionID = r.st.SessionID + "/" + ac.CallID
	} else {
		st.OneShot = true
	}
	st.TurnID = runID + "/turn"
	st.Transcript = childMessages(ac)
	st.Discovery = catalog.NewTurn(st.Transcript)
	return st, nil
}

// childMessages are the messages a child run of ac starts with. Without
// consumer-side prompt content — mapping a tool to a prompt
// (WithPromptSpec) belongs to the prompts work, and would be read here —
// the canonical payload is the child's user message (seed 003).
func childMessages(ac *admittedCall) []model.Message {
	return []model.Message{model.UserMessage(string(ac.Payload))}
}

// admittedContract is spec with the result contract ac was admitted
// under: a continuation in a process whose registration changed the
// tool's result still checks the child's answer against the first.
func admittedContract(spec tools.ToolSpec, ac *admittedCall) (tools.ToolSpec, error) {
	if len(ac.ResultSchema) == 0 || string(ac.ResultSchema) == string(spec.Result.Schema) {
		return spec, nil
	}
	result, err := tools.NewTypeSpec(spec.Result.Name, ac.ResultSchema)
	if err != nil {
		return spec, fmt.Errorf("the result contract %s was admitted with does not compile: %w", ac.Ident, err)
	}
	spec = spec.Clone()
	spec.Result = result
	return spec, nil
}

// maxAgentDepth is the policy's nesting bound (DefaultMaxAgentDepth when
// 0, none for NoAgentTools).
func (p RunPolicy) maxAgentDepth() int {
	switch {
	case p.MaxAgentDepth == 0:
		return DefaultMaxAgentDepth
	case p.MaxAgentDepth < 0:
		return 0
	}
	return p.MaxAgentDepth
}

// agentGrace is the finalizer grace of a registered agent.
func (rt *Runtime) agentGrace(agent string) time.Duration {
	if a, err := rt.agent(agent); err == nil {
		return a.reg.Policy.grace()
	}
	return DefaultFinalizerGrace
}

// childFailure is the failure of a call whose child run ended with err.
func childFailure(agent string, err error, timeout time.Duration) *toolcall.Failure {
	if errors.Is(err, context.DeadlineExceeded) {
		return toolcall.Fail(toolcall.KindTimeout, toolcall.RecoveryReplan,
			"The agent %s did not finish within the %s its caller's time budget had left; it was stopped. Answer with what you have, or try a smaller request.", agent, timeout.Round(time.Millisecond))
	}
	return toolcall.Fail(toolcall.KindToolError, toolcall.RecoveryReplan, "The agent %s failed: %v", agent, err)
}

// childOutcome adapts a completed child run to its tool's result
// contract: a run that gave up (time budget, caps, recovery turns, a tool
// failure that finished it) is a typed failure; an answer becomes the
// result (childResult) and is validated like any executor's.
func childOutcome(spec tools.ToolSpec, out RunOutput) toolcall.Outcome {
	agent := out.Agent
	switch out.Reason {
	case planner.ReasonTimeBudget:
		return toolcall.Failed(toolcall.Fail(toolcall.KindTimeout, toolcall.RecoveryReplan,
			"The agent %s ran out of its time budget before it finished%s", agent, partial(out)))
	case planner.ReasonToolCap:
		return toolcall.Failed(toolcall.Fail(toolcall.KindToolCap, toolcall.RecoveryReplan,
			"The agent %s reached its cap on tool calls before it finished%s", agent, partial(out)))
	case planner.ReasonRecoveryExhausted, planner.ReasonToolFailure, planner.ReasonMissingFields:
		return toolcall.Failed(toolcall.Fail(toolcall.KindToolError, toolcall.RecoveryReplan,
			"The agent %s could not finish (%s)%s", agent, out.Reason, partial(out)))
	}
	raw, err := childResult(spec, out)
	if err != nil {
		return toolcall.Failed(toolcall.InvalidResult(err))
	}
	return toolcall.Shape(spec, &toolcall.Result{Result: raw}, toolcall.Options{})
}

// partial quotes what a child that gave up last said, for its caller's
// model to use.
func partial(out RunOutput) string {
	if out.Final != nil && out.Final.Text != "" {
		return "; its last answer: " + clipText(out.Final.Text, 2000)
	}
	return "."
}

// clipText shortens s to at most n bytes (on a rune boundary).
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
