package runtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/history"
	"github.com/quiver-go/quiver/toolcall"
)

// workflowInput starts a run segment: a new run, or a continuation with the
// answer to its first pending item.
type workflowInput struct {
	State  runState              `json:"state"`
	Resume *PendingInputResponse `json:"resume,omitempty"`
}

// runner drives one run segment in workflow code.
type runner struct {
	rt    *Runtime
	wctx  engine.WorkflowContext
	agent *agentEntry
	st    *runState
	// segmentStart is when this segment began on the workflow clock.
	segmentStart time.Time
	// snapshot is the catalog of the latest planning step.
	snapshot catalog.Snapshot
	// refused are the latest step's calls the model-output limits refused.
	refused map[string]*planner.ToolFailure
	// contracts are the saved contracts of the latest step's registry
	// calls, by call id.
	contracts map[string]*savedContract
	// unlogged are the events emitted since the last append to the run
	// log (flush).
	unlogged []EventRecord
	// nested is set for a child run (an agent called as a tool): its
	// suspension is carried by its parent's checkpoint, not stored.
	nested bool
}

// runWorkflow is the run's workflow: deterministic, I/O only in activities.
func (rt *Runtime) runWorkflow(wctx engine.WorkflowContext, in workflowInput) (RunOutput, error) {
	a, err := rt.agent(in.State.Agent)
	if err != nil {
		return RunOutput{}, err
	}
	r := &runner{rt: rt, wctx: wctx, agent: a, st: &in.State, segmentStart: wctx.Now()}
	r.emit(RunStarted{Continued: in.Resume != nil})
	return r.end(r.segment(in.Resume))
}

// segment runs the segment from its start, or from the answer that
// continues it.
func (r *runner) segment(resume *PendingInputResponse) (RunOutput, error) {
	if resume != nil {
		if out, done, err := r.resume(*resume); done || err != nil {
			return out, err
		}
	}
	return r.loop(nil)
}

// loop plans and executes until the run ends or suspends. finalize, when
// set, asks the next planning step to finish for that reason.
func (r *runner) loop(finalize *planner.Finalize) (RunOutput, error) {
	for {
		if finalize == nil && r.overBudget() {
			finalize = &planner.Finalize{Reason: planner.ReasonTimeBudget}
		}
		res, err := r.plan(finalize)
		if err != nil {
			if finalize == nil && r.overBudget() {
				finalize = &planner.Finalize{Reason: planner.ReasonTimeBudget}
				continue
			}
			return RunOutput{}, err
		}
		out, next, done, err := r.handle(res, finalize)
		if done || err != nil {
			return out, err
		}
		finalize = next
	}
}

// plan runs one planning activity and appends its messages.
func (r *runner) plan(finalize *planner.Finalize) (*planner.PlanResult, error) {
	timeout := r.agent.reg.Policy.planTimeout()
	if finalize != nil && finalize.Reason == planner.ReasonTimeBudget {
		timeout = r.agent.reg.Policy.grace()
	} else if rem, ok := r.remaining(); ok && (timeout == 0 || rem < timeout) {
		timeout = rem
	}
	if err := r.flush(); err != nil {
		return nil, err
	}
	in := planInput{State: *r.st, Finalize: finalize}
	out, err := engine.ExecuteActivity[planOutput](r.wctx, activityPlan, engine.ActivityOptions{StartToCloseTimeout: timeout, Retry: r.agent.reg.Policy.planRetry()}, in)
	// The step's streamed events took the numbers after the workflow's:
	// its next events follow them (on a failure, as this process saw them).
	r.afterActivity(out.LastSeq, err != nil)
	if err != nil {
		// RunHandle.Wait prefixes the run.
		return nil, fmt.Errorf("planning step %d: %w", r.st.Step+1, err)
	}
	r.st.Step++
	r.st.Started = true
	r.st.Reminders = out.Reminders
	r.st.ResultReminders = nil
	// The planner has read the previous step's compact outputs.
	r.st.Outputs = nil
	if out.Compacted != nil {
		// History compression rewrote the transcript, keeping its most
		// recent turns verbatim after the summary: this run's messages are
		// the same tail, minus any the summary absorbed.
		start := len(out.Compacted) - (len(r.st.Transcript) - r.st.TurnStart)
		for i, m := range out.Compacted {
			if history.IsSummary(m) && start <= i {
				start = i + 1
			}
		}
		r.st.Transcript = out.Compacted
		r.st.TurnStart = max(start, 0)
	}
	r.snapshot = out.Snapshot
	r.st.Discovery = out.Discovery
	r.refused = out.Refused
	r.contracts = out.Contracts
	for _, read := range out.Reads {
		r.emit(RegistryRead{Registry: read.Registry, Revision: read.Revision,
			NotModified: read.NotModified, Stale: read.Stale, Age: read.Age, Cause: read.Cause})
	}
	res := &out.Result
	r.st.Transcript = append(r.st.Transcript, res.Messages...)
	r.st.Usage = r.st.Usage.Add(res.Usage)
	ev := Planned{Final: res.FinalResponse != nil}
	for _, c := range res.ToolCalls {
		ev.ToolCalls = append(ev.ToolCalls, callName(c))
	}
	for _, m := range res.Messages {
		ev.Text += m.TextContent()
	}
	r.emit(ev)
	r.emit(UsageReported{Usage: res.Usage})
	r.reportIgnoredCheckpoints(out.IgnoredCheckpoints)
	return res, nil
}

// handle acts on a plan: it returns the run output when the run ended or
// suspended, or the finalization the next step must honour.
func (r *runner) handle(res *planner.PlanResult, finalize *planner.Finalize) (RunOutput, *planner.Finalize, bool, error) {
	if finalize != nil {
		return r.handleFinal(res, finalize)
	}
	if err := checkPlanShape(res, r.isBookkeepingOnly(res.ToolCalls)); err != nil {
		// The rejected output's calls get results that keep the transcript
		// valid; none of them runs.
		for _, c := range res.ToolCalls {
			r.appendResult(c.CallID, callName(c), nil, &planner.ToolFailure{Code: toolcall.KindRejectedOutput, Message: "Not run: your answer was rejected because " + err.Error() + ".", Recovery: planner.RecoveryCorrectCall})
		}
		return r.rejectOutput(err.Error())
	}
	switch {
	case len(res.ToolCalls) > 0:
		b := &batchState{Final: res.FinalResponse, FinalToolResult: res.FinalToolResult, Await: res.Await}
		return r.runBatch(b, res.ToolCalls)
	case res.FinalResponse != nil:
		return r.complete(planner.ReasonFinalResponse, res.FinalResponse, nil), nil, true, nil
	case res.FinalToolResult != nil:
		return r.complete(planner.ReasonFinalToolResult, nil, res.FinalToolResult), nil, true, nil
	default: // Await
		return r.await(res.Await)
	}
}

// handleFinal finishes a finalizing step: a final response ends the run; a
// batch of terminal tools runs (terminal implies bookkeeping, so it is
// admitted even with the budgets spent); anything else is discarded with
// results that keep the transcript valid.
func (r *runner) handleFinal(res *planner.PlanResult, finalize *planner.Finalize) (RunOutput, *planner.Finalize, bool, error) {
	if len(res.ToolCalls) > 0 && r.allTerminal(res.ToolCalls) {
		b := &batchState{Finalizing: finalize.Reason, Final: res.FinalResponse}
		return r.runBatch(b, res.ToolCalls)
	}
	for _, c := range res.ToolCalls {
		r.appendResult(c.CallID, callName(c), nil, &planner.ToolFailure{Code: toolcall.KindDiscarded, Message: "The run is finishing; this call was not run.", Recovery: planner.RecoveryFinish})
	}
	if res.FinalToolResult != nil {
		return r.complete(finalize.Reason, nil, res.FinalToolResult), nil, true, nil
	}
	final := res.FinalResponse
	if final == nil {
		final = &planner.FinalResponse{Text: textOf(res.Messages)}
	}
	return r.complete(finalize.Reason, final, nil), nil, true, nil
}

// rejectOutput spends a recovery turn on a rejected model output, telling
// the model what was wrong, or finalizes when the turns are spent.
func (r *runner) rejectOutput(why string) (RunOutput, *planner.Finalize, bool, error) {
	if r.st.Recovery >= r.agent.reg.Policy.maxRecovery() {
		return RunOutput{}, &planner.Finalize{Reason: planner.ReasonRecoveryExhausted}, false, nil
	}
	r.st.Recovery++
	r.st.ResultReminders = append(r.st.ResultReminders, "Your last answer was rejected: "+why)
	r.st.Outputs = nil
	return RunOutput{}, nil, false, nil
}

// checkPlanShape enforces that a plan decides exactly one thing, except
// that a bookkeeping-only batch must resolve in the same turn (with a final
// response, a final tool result or an await).
func checkPlanShape(res *planner.PlanResult, bookkeepingOnly bool) error {
	n := 0
	for _, set := range []bool{len(res.ToolCalls) > 0, res.FinalResponse != nil, res.FinalToolResult != nil, res.Await != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return errors.New("it neither called a tool nor answered; call a tool or give the final answer")
	case n == 1 && bookkeepingOnly && len(res.ToolCalls) > 0:
		return errors.New("it only called bookkeeping tools, which must resolve the turn: add the final answer or call a terminal tool")
	case n > 1 && !(bookkeepingOnly && len(res.ToolCalls) > 0 && n == 2):
		return errors.New("it mixed tool calls with a final answer; only bookkeeping calls may accompany the answer")
	}
	return nil
}

// overBudget reports whether the run's time budget is spent.
func (r *runner) overBudget() bool {
	rem, ok := r.remaining()
	return ok && rem <= 0
}

// remaining returns the budget left (ok false when there is no budget).
func (r *runner) remaining() (time.Duration, bool) {
	b := r.agent.reg.Policy.budget()
	if c := r.st.BudgetCap; c > 0 && (b <= 0 || c < b) {
		// A child never outlives what its parent's budget had left.
		b = c
	}
	if b <= 0 {
		return 0, false
	}
	return b - r.active(), true
}

// active is the run's active time so far.
func (r *runner) active() time.Duration {
	return r.st.Elapsed + r.wctx.Now().Sub(r.segmentStart)
}

func callName(c planner.ToolRequest) string {
	if c.Name != "" {
		return c.Name
	}
	return string(c.Ident)
}

func textOf(msgs []model.Message) string {
	var s string
	for _, m := range msgs {
		s += m.TextContent()
	}
	return s
}
