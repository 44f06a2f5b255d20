package runtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime/history"
)

// DefaultMaxRecoveryTurns is used when [RunPolicy.MaxRecoveryTurns] is 0.
const DefaultMaxRecoveryTurns = 3

// NoRecoveryTurns, as MaxRecoveryTurns, allows no recovery turn at all.
const NoRecoveryTurns = -1

// DefaultFinalizerGrace is the time a final planner turn gets once the
// run's budget is spent, when [RunPolicy.FinalizerGrace] is 0.
const DefaultFinalizerGrace = 30 * time.Second

// RunPolicy is an agent's run-time constraints (seed DSL: RunPolicy).
type RunPolicy struct {
	// MaxToolCalls caps budgeted tool calls per run (bookkeeping calls are
	// free); 0 means no cap.
	MaxToolCalls int
	// MaxRecoveryTurns caps extra planner turns after rejected results or
	// outputs; 0 means [DefaultMaxRecoveryTurns], [NoRecoveryTurns] means none.
	MaxRecoveryTurns int
	// TimeBudget is a wall-clock budget for the run; use it or
	// [RunPolicy.Timing].
	TimeBudget time.Duration
	// Timing sets the budget and per-attempt timeouts; use it or
	// [RunPolicy.TimeBudget].
	Timing *Timing
	// FinalizerGrace is the time the final turn gets after the budget is
	// spent ([DefaultFinalizerGrace] when 0).
	FinalizerGrace time.Duration
	// History trims or compresses the conversation before each planning
	// step.
	History *history.Policy
	// Cache places prompt-cache checkpoints in model requests. A
	// checkpoint the model's adapter cannot place is ignored (never a
	// failed request) and reported once per run by a
	// [CacheCheckpointIgnored] event.
	Cache model.CacheCheckpoints
	// InterruptsAllowed lets the run suspend for clarification.
	InterruptsAllowed bool
	// OnMissingFields says what to do when a call lacks required fields.
	OnMissingFields MissingFieldsAction
	// Tools restricts the agent's tools by tags, names or a predicate.
	Tools catalog.Filter
	// ModelOutput bounds what one model response may ask of the runtime:
	// bytes and nesting per call's arguments, calls per response.
	ModelOutput OutputLimits
	// MaxAgentDepth bounds how deep agents called as tools (agent
	// toolsets) may nest below a run of this agent: a call that would start
	// a child deeper fails with [toolcall.KindDepthLimit]. 0 means
	// [DefaultMaxAgentDepth]; [NoAgentTools] refuses every agent tool.
	MaxAgentDepth int
	// PlanAttempts is how many times a planning step is tried before its
	// failure fails the run (0 or 1: once). A retry waits 1 s, doubling up
	// to 1 min, and starts with a [PlanningRetried] event: what the failed
	// attempt streamed is void. A step the planner or its model cannot do
	// at all (no model for the agent, a search the model cannot run) is
	// not retried, nor is a cancelled run's.
	PlanAttempts int
}

// DefaultMaxAgentDepth is how many levels of child runs an agent's run
// may have below it unless its policy says otherwise.
const DefaultMaxAgentDepth = 3

// NoAgentTools as [RunPolicy.MaxAgentDepth] lets no call start a child run.
const NoAgentTools = -1

// Timing is the fine-grained time policy.
type Timing struct {
	// Budget is the run's wall-clock budget (0: none).
	Budget time.Duration
	// Plan bounds one planning attempt (0: the remaining budget).
	Plan time.Duration
	// Tools bounds one tool attempt (0: the remaining budget).
	Tools time.Duration
}

// MissingFieldsAction is the OnMissingFields policy.
type MissingFieldsAction string

// The OnMissingFields actions.
const (
	// MissingFieldsPlanner returns the failure to the planner to decide.
	MissingFieldsPlanner MissingFieldsAction = ""
	// MissingFieldsFinalize ends the run (reason missing_fields).
	MissingFieldsFinalize MissingFieldsAction = "finalize"
	// MissingFieldsAwaitClarification suspends the run for the caller to
	// supply the fields; needs InterruptsAllowed.
	MissingFieldsAwaitClarification MissingFieldsAction = "await_clarification"
	// MissingFieldsResume runs the tool despite the missing fields.
	MissingFieldsResume MissingFieldsAction = "resume"
)

// validate reports every inconsistency of the policy.
func (p RunPolicy) validate(hasHistoryModel, historyCounts bool) error {
	var errs []error
	if p.PlanAttempts < 0 {
		errs = append(errs, fmt.Errorf("PlanAttempts is %d: use 0 or 1 for one attempt, or more to retry a failed planning step", p.PlanAttempts))
	}
	if p.MaxToolCalls < 0 {
		errs = append(errs, fmt.Errorf("MaxToolCalls is %d: use 0 for no cap or a positive number", p.MaxToolCalls))
	}
	if p.MaxRecoveryTurns < NoRecoveryTurns {
		errs = append(errs, fmt.Errorf("MaxRecoveryTurns is %d: use a positive number, 0 for the default or NoRecoveryTurns", p.MaxRecoveryTurns))
	}
	if p.TimeBudget != 0 && p.Timing != nil {
		errs = append(errs, errors.New("TimeBudget and Timing are both set: use TimeBudget alone or Timing.Budget"))
	}
	if p.TimeBudget < 0 || p.FinalizerGrace < 0 || (p.Timing != nil && (p.Timing.Budget < 0 || p.Timing.Plan < 0 || p.Timing.Tools < 0)) {
		errs = append(errs, errors.New("durations must not be negative"))
	}
	switch p.OnMissingFields {
	case MissingFieldsPlanner, MissingFieldsFinalize, MissingFieldsResume:
	case MissingFieldsAwaitClarification:
		if !p.InterruptsAllowed {
			errs = append(errs, errors.New(`OnMissingFields("await_clarification") needs InterruptsAllowed(true): a run cannot wait for clarification without interrupts`))
		}
	default:
		errs = append(errs, fmt.Errorf("OnMissingFields is %q: want finalize, await_clarification, resume or empty", p.OnMissingFields))
	}
	if err := p.ModelOutput.validate(); err != nil {
		errs = append(errs, err)
	}
	if p.History != nil {
		if err := p.History.Validate(hasHistoryModel, historyCounts); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// budget returns the run's time budget (0: none).
func (p RunPolicy) budget() time.Duration {
	if p.Timing != nil {
		return p.Timing.Budget
	}
	return p.TimeBudget
}

func (p RunPolicy) planTimeout() time.Duration {
	if p.Timing != nil {
		return p.Timing.Plan
	}
	return 0
}

// planRetry is the retry policy of planning activities.
func (p RunPolicy) planRetry() engine.RetryPolicy {
	if p.PlanAttempts <= 1 {
		return engine.RetryPolicy{}
	}
	return engine.RetryPolicy{MaxAttempts: p.PlanAttempts, InitialInterval: time.Second, BackoffCoefficient: 2, MaxInterval: time.Minute}
}

func (p RunPolicy) toolTimeout() time.Duration {
	if p.Timing != nil {
		return p.Timing.Tools
	}
	return 0
}

func (p RunPolicy) grace() time.Duration {
	if p.FinalizerGrace > 0 {
		return p.FinalizerGrace
	}
	return DefaultFinalizerGrace
}

func (p RunPolicy) maxRecovery() int {
	switch {
	case p.MaxRecoveryTurns == NoRecoveryTurns:
		return 0
	case p.MaxRecoveryTurns == 0:
		return DefaultMaxRecoveryTurns
	}
	return p.MaxRecoveryTurns
}
