package inmem

import (
	"context"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/engine"
)

var _ engine.WorkflowContext = (*run)(nil)

// Context implements engine.WorkflowContext: it is canceled when the
// workflow is canceled, times out or finishes.
func (r *run) Context() context.Context { return r.ctx }

// WorkflowID implements engine.WorkflowContext.
func (r *run) WorkflowID() string { return r.id }

// Now implements engine.WorkflowContext with the engine's clock.
func (r *run) Now() time.Time { return r.engine.clock() }

// IsReplaying implements engine.WorkflowContext: this engine never replays.
func (r *run) IsReplaying() bool { return false }

// GetVersion implements engine.WorkflowContext: nothing replays here, so
// every execution runs the newest code.
func (r *run) GetVersion(_ string, _, maxSupported int) int { return maxSupported }

// Sleep implements engine.WorkflowContext: it waits d of wall-clock time or
// until the workflow is canceled.
func (r *run) Sleep(d time.Duration) error {
	if r.ctx.Err() != nil {
		return r.canceled("sleep")
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.ctx.Done():
		return r.canceled("sleep")
	}
}

// ExecuteChild implements engine.WorkflowContext. The child runs in its own
// goroutine under a context derived from the parent's, so canceling (or
// timing out) the parent cancels the child; the parent's call returns
// engine.ErrCanceled at once then. opts.Timeout stops the child as a
// workflow timeout does (context.DeadlineExceeded). The child's error is
// wrapped, not flattened, so errors.Is sees through it.
func (r *run) ExecuteChild(id, workflow string, opts engine.ChildOptions, input any, out any) error {
	op := "child workflow " + workflow
	if r.ctx.Err() != nil {
		return r.canceled(op)
	}
	raw, err := engine.Marshal(input)
	if err != nil {
		return fmt.Errorf("inmem: workflow %s: %s: encode input: %w", r.id, op, err)
	}
	if id == "" {
		id = fmt.Sprintf("%s/%d", r.id, r.children.Add(1))
	}
	if opts.Timeout < 0 {
		return fmt.Errorf("inmem: workflow %s: %s: negative timeout %s", r.id, op, opts.Timeout)
	}
	child, err := r.engine.start(r.ctx, id, workflow, raw, opts.Timeout)
	if err != nil {
		return fmt.Errorf("%w (parent workflow %s)", err, r.id)
	}
	select {
	case <-child.done:
	case <-r.ctx.Done():
		select {
		case <-child.done:
		default:
			return r.canceled(op)
		}
	}
	if child.err != nil {
		return fmt.Errorf("inmem: workflow %s: %s (id %s): %w", r.id, op, id, child.err)
	}
	if err := engine.Unmarshal(child.out, out); err != nil {
		return fmt.Errorf("inmem: workflow %s: %s (id %s): decode output: %w", r.id, op, id, err)
	}
	return nil
}

// ExecuteActivity implements engine.WorkflowContext. Errors naming an
// unknown activity, an input that does not marshal, invalid options or an
// output that does not unmarshal into out are plain errors; failures of the
// activity itself are *engine.ActivityError (see the package doc).
func (r *run) ExecuteActivity(name string, opts engine.ActivityOptions, input any, out any) error {
	def, ok := r.engine.activity(name)
	if !ok {
		return fmt.Errorf("inmem: workflow %s: activity %q: %w", r.id, name, engine.ErrUnknownActivity)
	}
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("inmem: workflow %s: activity %s: %w", r.id, name, err)
	}
	raw, err := engine.Marshal(input)
	if err != nil {
		return fmt.Errorf("inmem: workflow %s: activity %s: encode input: %w", r.id, name, err)
	}
	output, err := r.runActivity(def, opts.Merge(def.Options), raw)
	if err != nil {
		return err
	}
	if err := engine.Unmarshal(output, out); err != nil {
		return fmt.Errorf("inmem: workflow %s: activity %s: decode output: %w", r.id, name, err)
	}
	return nil
}
