package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ErrCanceled is returned by workflow operations once the workflow is
// canceled, and by WorkflowHandle.Wait for a canceled workflow.
var ErrCanceled = errors.New("engine: workflow canceled")

// ErrUnknownWorkflow and ErrUnknownActivity report names never registered.
var (
	ErrUnknownWorkflow = errors.New("engine: unknown workflow")
	ErrUnknownActivity = errors.New("engine: unknown activity")
)

// ErrAlreadyRegistered reports a second registration under one name.
var ErrAlreadyRegistered = errors.New("engine: name already registered")

// ErrTimeout is wrapped by an activity attempt that ran past its timeout.
var ErrTimeout = errors.New("engine: activity timed out")

// Engine runs workflows and their activities.
type Engine interface {
	// RegisterWorkflow makes a workflow startable by name.
	RegisterWorkflow(def WorkflowDefinition) error
	// RegisterActivity makes an activity executable by name.
	RegisterActivity(def ActivityDefinition) error
	// StartWorkflow starts a registered workflow and returns at once.
	StartWorkflow(ctx context.Context, req StartRequest) (WorkflowHandle, error)
}

// WorkflowFunc is deterministic workflow code.
type WorkflowFunc func(wctx WorkflowContext, input json.RawMessage) (json.RawMessage, error)

// ActivityFunc does I/O on behalf of a workflow.
type ActivityFunc func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// WorkflowDefinition names a workflow.
type WorkflowDefinition struct {
	Name    string
	Handler WorkflowFunc
}

// ActivityDefinition names an activity and its default options.
type ActivityDefinition struct {
	Name    string
	Handler ActivityFunc
	// Options are the defaults; ExecuteActivity may override them.
	Options ActivityOptions
}

// StartRequest starts one workflow execution.
type StartRequest struct {
	// ID identifies the execution; it must be unique among running ones.
	ID       string
	Workflow string
	Input    json.RawMessage
	// Timeout bounds the whole execution (0: none).
	Timeout time.Duration
}

// WorkflowHandle follows one started execution.
type WorkflowHandle interface {
	// ID is the execution id.
	ID() string
	// Wait blocks until the workflow ends or ctx is done and returns its
	// output or error.
	Wait(ctx context.Context) (json.RawMessage, error)
	// Cancel asks the workflow to stop: pending and later workflow
	// operations return ErrCanceled.
	Cancel(ctx context.Context) error
}

// ActivityOptions bound one activity execution.
type ActivityOptions struct {
	// StartToCloseTimeout bounds one attempt (0: no bound beyond the
	// workflow's).
	StartToCloseTimeout time.Duration
	// Retry says how failed attempts are retried; zero means one attempt.
	Retry RetryPolicy
}

// RetryPolicy retries failed activity attempts with exponential backoff.
// Errors marked NonRetryable (see NewNonRetryableError) are not retried.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt; 0 or 1 means no retry.
	MaxAttempts        int
	InitialInterval    time.Duration
	BackoffCoefficient float64
	MaxInterval        time.Duration
}

// ChildOptions configure one child workflow.
type ChildOptions struct {
	// Timeout bounds the child's whole execution from its start (0: no
	// bound but the parent's). A parent passes the time its own budget has
	// left, so that a child never outlives it.
	Timeout time.Duration
}

// WorkflowContext is what workflow code may use.
type WorkflowContext interface {
	// Context is canceled when the workflow is; pass it to nothing that
	// does I/O.
	Context() context.Context
	// WorkflowID is the execution id.
	WorkflowID() string
	// Now is the workflow's deterministic clock.
	Now() time.Time
	// IsReplaying reports whether the code is re-running history (durable
	// engines); side effects such as event publication are skipped then.
	IsReplaying() bool
	// ExecuteActivity runs a registered activity (with opts overriding its
	// defaults when non-zero) and stores its output in out (may be nil).
	ExecuteActivity(name string, opts ActivityOptions, input any, out any) error
	// ExecuteChild runs a registered workflow as a child and stores its
	// output in out (may be nil). The child is cancelled when its parent
	// is (the call returns an error wrapping [ErrCanceled]) and stopped
	// when opts.Timeout runs out (an error wrapping
	// context.DeadlineExceeded).
	ExecuteChild(id, workflow string, opts ChildOptions, input any, out any) error
	// Sleep waits for d on the workflow clock.
	Sleep(d time.Duration) error
	// GetVersion guards a change to workflow code, as Temporal's
	// workflow.GetVersion does: it returns maxSupported for an execution
	// that reaches the change for the first time and, when a durable
	// engine replays one that ran before the change, the version it
	// recorded then ([DefaultVersion] for code older than any
	// GetVersion for changeID). Code branches on the result to make the
	// decisions the history holds. Engines that never replay return
	// maxSupported.
	GetVersion(changeID string, minSupported, maxSupported int) int
}

// DefaultVersion is the version GetVersion returns for executions that
// ran before the change it guards.
const DefaultVersion = -1

// activityAttemptKey carries an activity attempt's number in its context.
type activityAttemptKey struct{}

// WithActivityAttempt returns ctx carrying the attempt number n (1 for the
// first) of the activity it is given to. Engines call it for every attempt.
func WithActivityAttempt(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, activityAttemptKey{}, n)
}

// ActivityAttempt returns the number of the activity attempt ctx belongs
// to: 1 for the first, 2 for the first retry, …; 1 when the engine did not
// say. Activities read it to tell the events of a retried attempt from
// those of the attempt before.
func ActivityAttempt(ctx context.Context) int {
	if n, ok := ctx.Value(activityAttemptKey{}).(int); ok && n > 0 {
		return n
	}
	return 1
}

// Durable is implemented by engines whose runs outlive the process running
// them: when a worker dies, another continues its workflows from their
// history (engine/temporal). The runtime then never records such a run as
// interrupted.
type Durable interface {
	// Durable reports whether the engine's workflows survive their
	// worker's process.
	Durable() bool
}

// IsDurable reports whether e is a [Durable] engine whose workflows
// survive their worker.
func IsDurable(e Engine) bool {
	d, ok := e.(Durable)
	return ok && d.Durable()
}
