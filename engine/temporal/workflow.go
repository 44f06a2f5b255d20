package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/quiver-go/quiver/engine"
)

// workflowFunc adapts an engine workflow to the SDK: bytes in, bytes out,
// and a cancelled workflow ending as Temporal's cancellation.
func (e *Engine) workflowFunc(def engine.WorkflowDefinition) func(workflow.Context, []byte) ([]byte, error) {
	return func(ctx workflow.Context, input []byte) ([]byte, error) {
		wc := &workflowContext{engine: e, ctx: ctx, id: workflow.GetInfo(ctx).WorkflowExecution.ID, std: newWorkflowStdContext(ctx)}
		out, err := def.Handler(wc, json.RawMessage(input))
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, engine.ErrCanceled) {
				return nil, temporal.NewCanceledError(err.Error())
			}
			// Only the message and a type cross Temporal: the type says
			// which engine sentinel the error wraps (workflowFailure).
			typ := typeError
			if errors.Is(err, engine.ErrTimeout) {
				typ = typeTimeout
			}
			return nil, temporal.NewApplicationErrorWithOptions(err.Error(), typ, temporal.ApplicationErrorOptions{NonRetryable: true})
		}
		return []byte(out), nil
	}
}

// workflowContext is engine.WorkflowContext over a workflow.Context. Its
// methods run in workflow code only.
type workflowContext struct {
	engine   *Engine
	ctx      workflow.Context
	id       string
	std      *workflowStdContext
	children int
}

var _ engine.WorkflowContext = (*workflowContext)(nil)

// Context implements engine.WorkflowContext: Err reports the workflow's
// cancellation.
func (w *workflowContext) Context() context.Context { return w.std }

// WorkflowID implements engine.WorkflowContext.
func (w *workflowContext) WorkflowID() string { return w.id }

// Now implements engine.WorkflowContext with the workflow clock.
func (w *workflowContext) Now() time.Time { return workflow.Now(w.ctx) }

// IsReplaying implements engine.WorkflowContext.
func (w *workflowContext) IsReplaying() bool { return workflow.IsReplaying(w.ctx) }

// GetVersion implements engine.WorkflowContext with workflow.GetVersion.
func (w *workflowContext) GetVersion(changeID string, minSupported, maxSupported int) int {
	return int(workflow.GetVersion(w.ctx, changeID, workflow.Version(minSupported), workflow.Version(maxSupported)))
}

// Sleep implements engine.WorkflowContext with a durable timer.
func (w *workflowContext) Sleep(d time.Duration) error {
	if w.ctx.Err() != nil {
		return w.canceled("sleep")
	}
	if d <= 0 {
		return nil
	}
	if err := workflow.Sleep(w.ctx, d); err != nil {
		if temporal.IsCanceledError(err) || w.ctx.Err() != nil {
			return w.canceled("sleep")
		}
		return fmt.Errorf("temporal: workflow %s: sleep: %w", w.id, err)
	}
	return nil
}

// ExecuteActivity implements engine.WorkflowContext. Failures of the
// activity are *engine.ActivityError (see the package doc).
func (w *workflowContext) ExecuteActivity(name string, opts engine.ActivityOptions, input any, out any) error {
	def, ok := w.engine.activity(name)
	if !ok {
		return fmt.Errorf("temporal: workflow %s: activity %q: %w", w.id, name, engine.ErrUnknownActivity)
	}
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("temporal: workflow %s: activity %s: %w", w.id, name, err)
	}
	if w.ctx.Err() != nil {
		return activityCanceled(name, w.canceled("activity "+name))
	}
	raw, err := engine.Marshal(input)
	if err != nil {
		return fmt.Errorf("temporal: workflow %s: activity %s: encode input: %w", w.id, name, err)
	}
	ctx := workflow.WithActivityOptions(w.ctx, w.engine.activityOptions(opts.Merge(def.Options)))
	var res []byte
	if err := workflow.ExecuteActivity(ctx, name, []byte(raw)).Get(ctx, &res); err != nil {
		if w.ctx.Err() != nil {
			return activityCanceled(name, w.canceled("activity "+name))
		}
		return activityFailure(name, err)
	}
	if err := engine.Unmarshal(res, out); err != nil {
		return fmt.Errorf("temporal: workflow %s: activity %s: decode output: %w", w.id, name, err)
	}
	return nil
}

// ExecuteChild implements engine.WorkflowContext. The child runs on the
// parent's task queue as a child workflow, is cancelled with its parent
// and when its parent closes, and is stopped at opts.Timeout (an error
// wrapping context.DeadlineExceeded).
func (w *workflowContext) ExecuteChild(id, name string, opts engine.ChildOptions, input any, out any) error {
	op := "child workflow " + name
	if w.ctx.Err() != nil {
		return w.canceled(op)
	}
	if opts.Timeout < 0 {
		return fmt.Errorf("temporal: workflow %s: %s: negative timeout %s", w.id, op, opts.Timeout)
	}
	raw, err := engine.Marshal(input)
	if err != nil {
		return fmt.Errorf("temporal: workflow %s: %s: encode input: %w", w.id, op, err)
	}
	if id == "" {
		w.children++
		id = fmt.Sprintf("%s/%d", w.id, w.children)
	}
	ctx := workflow.WithChildOptions(w.ctx, workflow.ChildWorkflowOptions{
		WorkflowID:               id,
		WorkflowExecutionTimeout: opts.Timeout,
		WorkflowTaskTimeout:      w.engine.opts.WorkflowTaskTimeout,
		ParentClosePolicy:        enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
	})
	var res []byte
	if err := workflow.ExecuteChildWorkflow(ctx, name, []byte(raw)).Get(ctx, &res); err != nil {
		if w.ctx.Err() != nil {
			return w.canceled(op)
		}
		return fmt.Errorf("temporal: workflow %s: %s (id %s): %w", w.id, op, id, workflowFailure(err))
	}
	if err := engine.Unmarshal(res, out); err != nil {
		return fmt.Errorf("temporal: workflow %s: %s (id %s): decode output: %w", w.id, op, id, err)
	}
	return nil
}

// canceled is the error of an operation the workflow's cancellation
// stopped.
func (w *workflowContext) canceled(op string) error {
	return fmt.Errorf("temporal: workflow %s: %s: %w", w.id, op, engine.ErrCanceled)
}

// workflowStdContext is the context.Context of WorkflowContext.Context:
// it reports the workflow's cancellation through Err, which workflow code
// polls; Done closes once Err has reported it. It carries no deadline and
// no values, and must not reach anything doing I/O.
type workflowStdContext struct {
	wf   workflow.Context
	done chan struct{}
	once sync.Once
}

func newWorkflowStdContext(wf workflow.Context) *workflowStdContext {
	return &workflowStdContext{wf: wf, done: make(chan struct{})}
}

func (c *workflowStdContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *workflowStdContext) Value(any) any               { return nil }

func (c *workflowStdContext) Done() <-chan struct{} {
	_ = c.Err()
	return c.done
}

func (c *workflowStdContext) Err() error {
	if c.wf.Err() == nil {
		return nil
	}
	c.once.Do(func() { close(c.done) })
	return context.Canceled
}
