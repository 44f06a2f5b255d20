package expr

import (
	"fmt"
	"time"

	"goa.design/goa/v3/eval"
)

// RunPolicyExpr is an agent's RunPolicy: the run-time constraints the
// generated agent registers as its runtime.RunPolicy defaults. Durations are
// parsed when the design is evaluated.
type RunPolicyExpr struct {
	eval.DSLFunc
	// Agent is the agent the policy constrains.
	Agent *AgentExpr
	// MaxToolCalls caps budgeted tool calls per run (bookkeeping calls are
	// free). nil leaves it unset; 0 means no cap, as in runtime.RunPolicy.
	MaxToolCalls *int
	// MaxRecoveryTurns caps extra planner turns after a rejected result or
	// output. nil leaves the runtime default; 0 allows no recovery turn
	// (see RuntimeMaxRecoveryTurns).
	MaxRecoveryTurns *int
	// TimeBudget is the run's wall-clock budget (0: none). It excludes
	// Timing.
	TimeBudget time.Duration
	// Timing sets the budget and per-attempt timeouts; nil: none.
	Timing *TimingExpr
	// History trims or compresses the conversation; nil keeps it whole.
	History *HistoryExpr
	// Cache places prompt-cache checkpoints; nil places none.
	Cache *CacheExpr
	// InterruptsAllowed lets the run suspend for clarification.
	InterruptsAllowed bool
	// OnMissingFields says what to do when a tool call lacks required
	// fields.
	OnMissingFields MissingFieldsAction
}

// MissingFieldsAction is an OnMissingFields value; the values are those of
// runtime.MissingFieldsAction.
type MissingFieldsAction string

// The OnMissingFields values.
const (
	// MissingFieldsPlanner ("") lets the planner decide.
	MissingFieldsPlanner MissingFieldsAction = ""
	// MissingFieldsFinalize ends the run.
	MissingFieldsFinalize MissingFieldsAction = "finalize"
	// MissingFieldsAwaitClarification suspends the run until the caller
	// supplies the fields; it needs InterruptsAllowed(true).
	MissingFieldsAwaitClarification MissingFieldsAction = "await_clarification"
	// MissingFieldsResume runs the tool despite the missing fields.
	MissingFieldsResume MissingFieldsAction = "resume"
)

// Valid reports whether a is one of the OnMissingFields values.
func (a MissingFieldsAction) Valid() bool {
	switch a {
	case MissingFieldsPlanner, MissingFieldsFinalize, MissingFieldsAwaitClarification, MissingFieldsResume:
		return true
	}
	return false
}

// TimingExpr is the fine-grained time policy of a RunPolicy.
type TimingExpr struct {
	eval.DSLFunc
	// Policy is the enclosing run policy.
	Policy *RunPolicyExpr
	// Budget is the run's wall-clock budget (0: none).
	Budget time.Duration
	// Plan bounds one planning attempt (0: the remaining budget).
	Plan time.Duration
	// Tools bounds one tool attempt (0: the remaining budget).
	Tools time.Duration
}

// HistoryExpr is the history policy of a RunPolicy: a sliding window
// (KeepRecentTurns) or model-assisted compression (a CompressAt… trigger
// and a KeepMax… retention), never both. A zero field is unset.
type HistoryExpr struct {
	eval.DSLFunc
	// Policy is the enclosing run policy.
	Policy *RunPolicyExpr
	// KeepRecentTurns keeps only the n most recent turns in requests.
	KeepRecentTurns int
	// CompressAtTurns triggers compression at n logical turns.
	CompressAtTurns int
	// CompressAtMaxInputTokens triggers compression past n input tokens.
	CompressAtMaxInputTokens int
	// KeepMaxTurns keeps at most n recent turns verbatim.
	KeepMaxTurns int
	// KeepMaxInputTokens keeps the recent whole turns fitting n tokens.
	KeepMaxInputTokens int
}

// CacheExpr places prompt-cache checkpoints.
type CacheExpr struct {
	eval.DSLFunc
	// Policy is the enclosing run policy.
	Policy *RunPolicyExpr
	// AfterSystem places a checkpoint after the system messages.
	AfterSystem bool
	// AfterTools places a checkpoint after the tool definitions.
	AfterTools bool
}

// EvalName implements eval.Expression.
func (p *RunPolicyExpr) EvalName() string { return "run policy of " + p.Agent.EvalName() }

// EvalName implements eval.Expression.
func (t *TimingExpr) EvalName() string { return "Timing of " + t.Policy.Agent.EvalName() }

// EvalName implements eval.Expression.
func (h *HistoryExpr) EvalName() string { return "History of " + h.Policy.Agent.EvalName() }

// EvalName implements eval.Expression.
func (c *CacheExpr) EvalName() string { return "Cache of " + c.Policy.Agent.EvalName() }

// RuntimeMaxRecoveryTurns returns MaxRecoveryTurns in runtime.RunPolicy's
// convention: 0 for the runtime default, -1 (runtime.NoRecoveryTurns) for
// none, n otherwise.
func (p *RunPolicyExpr) RuntimeMaxRecoveryTurns() int {
	switch {
	case p.MaxRecoveryTurns == nil:
		return 0
	case *p.MaxRecoveryTurns == 0:
		return -1
	}
	return *p.MaxRecoveryTurns
}

// Compresses reports whether the history policy is compression.
func (h *HistoryExpr) Compresses() bool {
	return h.CompressAtTurns > 0 || h.CompressAtMaxInputTokens > 0 || h.KeepMaxTurns > 0 || h.KeepMaxInputTokens > 0
}

// Validate reports the rules that span several policy functions: TimeBudget
// excludes Timing, await_clarification needs interrupts, and the history
// rules. Single values (durations, counts, OnMissingFields values) are
// checked when the DSL runs.
func (p *RunPolicyExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	if p.TimeBudget != 0 && p.Timing != nil {
		verr.Add(p, "TimeBudget: TimeBudget and Timing are both set: use TimeBudget alone or Timing's Budget")
	}
	if p.OnMissingFields == MissingFieldsAwaitClarification && !p.InterruptsAllowed {
		verr.Add(p, `OnMissingFields: OnMissingFields("await_clarification") needs InterruptsAllowed(true): a run cannot wait for clarification without interrupts`)
	}
	if t := p.Timing; t != nil && t.Budget == 0 && t.Plan == 0 && t.Tools == 0 {
		verr.Add(t, "Timing: sets nothing: call Budget, Plan or Tools in it")
	}
	if c := p.Cache; c != nil && !c.AfterSystem && !c.AfterTools {
		verr.Add(c, "Cache: places no checkpoint: call AfterSystem(), AfterTools() or both in it")
	}
	if p.History != nil {
		if err := p.History.Validate(); err != nil {
			verr.AddError(p.History, err)
		}
	}
	return result(verr)
}

// Validate enforces the history rules of runtime/history.Policy, in its
// words: at most one history policy, and compression needs a trigger and a
// retention. Counts are checked (n > 0) when the DSL runs.
func (h *HistoryExpr) Validate() error {
	verr := new(eval.ValidationErrors)
	if !h.Compresses() {
		if h.KeepRecentTurns == 0 {
			verr.Add(h, "History: declares no policy: use KeepRecentTurns(n) for a sliding window, or a CompressAtTurns/CompressAtMaxInputTokens trigger with a KeepMaxTurns/KeepMaxInputTokens retention")
		}
		return result(verr)
	}
	if h.KeepRecentTurns != 0 {
		verr.Add(h, "History: at most one history policy per agent: set KeepRecentTurns (a sliding window) or compression (CompressAt…, KeepMax…), not both")
	}
	if h.CompressAtTurns <= 0 && h.CompressAtMaxInputTokens <= 0 {
		verr.Add(h, "History: compression needs a trigger: set CompressAtTurns or CompressAtMaxInputTokens")
	}
	if h.KeepMaxTurns <= 0 && h.KeepMaxInputTokens <= 0 {
		verr.Add(h, "History: compression needs a retention: set KeepMaxTurns or KeepMaxInputTokens")
	}
	return result(verr)
}

// ParseDuration parses a policy duration for the DSL function fname: a Go
// duration ("45s", "2m", "1h30m") that must be positive. The error names the
// function and the value.
func ParseDuration(fname, value string) (time.Duration, error) {
	d, err := time.ParseDuration(value)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a duration: want a Go duration such as \"45s\", \"2m\" or \"1h30m\"", fname, value)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%s: %q must be positive (omit %s for no limit)", fname, value, fname)
	}
	return d, nil
}
