package temporal

import (
	"context"
	"encoding/json"
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
