package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/quiver-go/quiver/engine"
)

// Activity error types, the values of engine.ActivityError.Type (the same
// as engine/inmem's).
const (
	typeError    = "error"
	typeTimeout  = "timeout"
	typeCanceled = "canceled"
	typePanic    = "panic"
)

// cancellationBeat is how often an activity heartbeats when no heartbeat
// timeout is set: Temporal tells an activity it was cancelled only in the
// answer to a heartbeat.
const cancellationBeat = time.Second

// activity returns a registered activity's definition.
func (e *Engine) activity(name string) (engine.ActivityDefinition, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	def, ok := e.activities[name]
	return def, ok
}

// activityOptions are the SDK options of one activity execution: the
// runtime's timeout and retries, the adapter's defaults for the rest.
func (e *Engine) activityOptions(o engine.ActivityOptions) temporalActivityOptions {
	d := e.opts.ActivityDefaults
	ao := temporalActivityOptions{
		StartToCloseTimeout:    o.StartToCloseTimeout,
		ScheduleToStartTimeout: d.ScheduleToStartTimeout,
		HeartbeatTimeout:       d.HeartbeatTimeout,
		RetryPolicy:            d.RetryPolicy,
	}
	if ao.StartToCloseTimeout == 0 {
		ao.StartToCloseTimeout = d.StartToCloseTimeout
	}
	if ao.StartToCloseTimeout == 0 {
		ao.StartToCloseTimeout = DefaultStartToCloseTimeout
	}
	if ao.RetryPolicy == nil {
		p := o.Retry.WithDefaults()
		ao.RetryPolicy = &temporal.RetryPolicy{
			InitialInterval:    p.InitialInterval,
			BackoffCoefficient: p.BackoffCoefficient,
			MaximumInterval:    p.MaxInterval,
			MaximumAttempts:    int32(max(o.Retry.MaxAttempts, 1)),
		}
	}
	return ao
}

// activityFunc adapts an engine activity to the SDK: it passes the
// attempt number, heartbeats while the handler runs (so that a dead
// worker is noticed and a cancellation delivered), and turns the handler's error or panic into the
// application error the workflow side reads back.
func (e *Engine) activityFunc(def engine.ActivityDefinition) func(context.Context, []byte) ([]byte, error) {
	beat := e.opts.ActivityDefaults.HeartbeatTimeout / 3
	if beat <= 0 {
		// Without a heartbeat timeout, heartbeats still carry the
		// workflow's cancellation to the attempt.
		beat = cancellationBeat
	}
	return func(ctx context.Context, input []byte) (out []byte, err error) {
		ctx = engine.WithActivityAttempt(ctx, int(activity.GetInfo(ctx).Attempt))
		stop := heartbeat(ctx, beat)
		defer stop()
		defer func() {
			if p := recover(); p != nil {
				out, err = nil, temporal.NewApplicationErrorWithOptions(fmt.Sprintf("panic: %v", p), typePanic, temporal.ApplicationErrorOptions{})
			}
		}()
		res, err := def.Handler(ctx, json.RawMessage(input))
		if err != nil {
			if ctx.Err() != nil {
				// The attempt's context ended (its timeout, or the
				// workflow's cancellation): Temporal reports why.
				return nil, ctx.Err()
			}
			return nil, temporal.NewApplicationErrorWithOptions(err.Error(), typeError,
				temporal.ApplicationErrorOptions{NonRetryable: engine.IsNonRetryable(err)})
		}
		return []byte(res), nil
	}
}

// heartbeat records a heartbeat every interval until stop is called.
func heartbeat(ctx context.Context, interval time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

// activityFailure turns what ExecuteActivity's future returned into an
// *engine.ActivityError.
func activityFailure(name string, err error) error {
	ae := &engine.ActivityError{Activity: name, Type: typeError, Message: err.Error()}
	var (
		app      *temporal.ApplicationError
		timeout  *temporal.TimeoutError
		canceled *temporal.CanceledError
		panicked *temporal.PanicError
	)
	switch {
	case errors.As(err, &timeout):
		ae.Type, ae.Message = typeTimeout, fmt.Sprintf("%s timeout", timeout.TimeoutType())
		ae.Cause = fmt.Errorf("temporal: activity %s: %s: %w", name, timeout.Error(), engine.ErrTimeout)
	case errors.As(err, &canceled):
		return activityCanceled(name, fmt.Errorf("temporal: activity %s: %w", name, engine.ErrCanceled))
	case errors.As(err, &app):
		ae.Message, ae.NonRetryable = app.Message(), app.NonRetryable()
		if app.Type() == typePanic {
			ae.Type = typePanic
		}
	case errors.As(err, &panicked):
		ae.Type, ae.Message = typePanic, panicked.Error()
	}
	return ae
}

// activityCanceled is the error of an activity the workflow's cancellation
// stopped.
func activityCanceled(name string, cause error) error {
	return &engine.ActivityError{Activity: name, Type: typeCanceled, Message: "the workflow was canceled", Cause: cause}
}

// workflowFailure turns the error a workflow (started or child) ended with
// into the engine's terms: its cancellation wraps engine.ErrCanceled, its
// timeout context.DeadlineExceeded, its own error keeps its message.
func workflowFailure(err error) error {
	var (
		app      *temporal.ApplicationError
		timeout  *temporal.TimeoutError
		canceled *temporal.CanceledError
		term     *temporal.TerminatedError
	)
	switch {
	case errors.As(err, &canceled):
		return fmt.Errorf("%s: %w", canceled.Error(), engine.ErrCanceled)
	case errors.As(err, &timeout):
		return fmt.Errorf("the workflow ran past its timeout (%s): %w", timeout.TimeoutType(), context.DeadlineExceeded)
	case errors.As(err, &term):
		return fmt.Errorf("the workflow was terminated: %s", term.Error())
	case errors.As(err, &app) && app.Type() == typeTimeout:
		return &workflowError{msg: app.Message(), sentinel: engine.ErrTimeout}
	case errors.As(err, &app):
		return errors.New(app.Message())
	}
	return err
}

// workflowError is a workflow's error read back from Temporal: its message,
// and the engine sentinel it wrapped, for errors.Is.
type workflowError struct {
	msg      string
	sentinel error
}

func (e *workflowError) Error() string { return e.msg }
func (e *workflowError) Unwrap() error { return e.sentinel }
