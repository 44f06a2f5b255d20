package inmem

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/quiver-go/quiver/engine"
)

// Activity error types, the values of engine.ActivityError.Type.
const (
	typeError    = "error"
	typeTimeout  = "timeout"
	typeCanceled = "canceled"
	typePanic    = "panic"
)

// failure is one failed attempt before it becomes an *engine.ActivityError.
type failure struct {
	typ, msg     string
	nonRetryable bool
	// cause is the sentinel chain the final error keeps (engine.ErrTimeout,
	// engine.ErrCanceled) or nil.
	cause error
}

// err is the error workflow code receives for f.
func (f *failure) err(activity string) error {
	return &engine.ActivityError{Activity: activity, Type: f.typ, Message: f.msg, NonRetryable: f.nonRetryable, Cause: f.cause}
}

// runActivity runs def's attempts until one succeeds, an error may not be
// retried, the attempts are exhausted or the workflow is canceled.
func (r *run) runActivity(def *engine.ActivityDefinition, opts engine.ActivityOptions, input json.RawMessage) (json.RawMessage, error) {
	maxAttempts := max(opts.Retry.MaxAttempts, 1)
	for attempt := 1; ; attempt++ {
		out, f := r.attempt(def, opts.StartToCloseTimeout, input, attempt)
		if f == nil {
			return out, nil
		}
		if f.nonRetryable || f.typ == typeCanceled || attempt >= maxAttempts {
			return nil, f.err(def.Name)
		}
		t := time.NewTimer(backoff(opts.Retry, attempt))
		select {
		case <-t.C:
		case <-r.ctx.Done():
			t.Stop()
			return nil, r.canceledFailure(def.Name).err(def.Name)
		}
	}
}

// attemptResult is what a handler goroutine reports.
type attemptResult struct {
	out      json.RawMessage
	err      error
	panicked bool
	panicMsg string
}

// attempt runs the handler once in its own goroutine, bounded by timeout
// (when > 0) and by the workflow's context.
func (r *run) attempt(def *engine.ActivityDefinition, timeout time.Duration, input json.RawMessage, attempt int) (json.RawMessage, *failure) {
	if r.ctx.Err() != nil {
		return nil, r.canceledFailure(def.Name)
	}
	if err := r.engine.acquire(r.ctx); err != nil {
		return nil, r.canceledFailure(def.Name)
	}
	var (
		ctx    context.Context
		cancel context.CancelFunc
	)
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(r.ctx, timeout)
	} else {
		ctx, cancel = context.WithCancel(r.ctx)
	}
	defer cancel()
	ctx = engine.WithActivityAttempt(ctx, attempt)

	results := make(chan attemptResult, 1)
	go func() {
		var res attemptResult
		returned := false
		defer func() {
			if p := recover(); p != nil {
				res = attemptResult{panicked: true, panicMsg: fmt.Sprintf("panic: %v", p)}
			} else if !returned {
				res = attemptResult{panicked: true, panicMsg: "handler called runtime.Goexit"}
			}
			results <- res
			r.engine.releaseSlot()
		}()
		res.out, res.err = def.Handler(ctx, input)
		returned = true
	}()

	var res attemptResult
	select {
	case res = <-results:
	case <-ctx.Done():
		select {
		case res = <-results:
		default:
			return nil, r.interrupted(def.Name, timeout, attempt)
		}
	}
	switch {
	case res.panicked:
		return nil, &failure{typ: typePanic, msg: res.panicMsg}
	case res.err != nil && ctx.Err() != nil:
		// The handler gave up because its context ended: report why.
		return nil, r.interrupted(def.Name, timeout, attempt)
	case res.err != nil:
		return nil, &failure{typ: typeError, msg: res.err.Error(), nonRetryable: engine.IsNonRetryable(res.err)}
	}
	return res.out, nil
}

// interrupted classifies an attempt whose context ended before the handler
// returned: a canceled workflow wins over the attempt's own timeout.
func (r *run) interrupted(activity string, timeout time.Duration, attempt int) *failure {
	if r.ctx.Err() != nil {
		return r.canceledFailure(activity)
	}
	return &failure{
		typ: typeTimeout,
		msg: fmt.Sprintf("attempt %d timed out after %s", attempt, timeout),
		cause: fmt.Errorf("inmem: activity %s: attempt %d exceeded its start-to-close timeout of %s: %w",
			activity, attempt, timeout, engine.ErrTimeout),
	}
}

// canceledFailure reports an activity stopped by the workflow's
// cancellation (or timeout).
func (r *run) canceledFailure(activity string) *failure {
	cause := r.canceled("activity " + activity)
	return &failure{typ: typeCanceled, msg: context.Cause(r.ctx).Error(), cause: cause}
}

// backoff is the wait after the given failed attempt (1-based).
func backoff(p engine.RetryPolicy, attempt int) time.Duration {
	p = p.WithDefaults()
	d := float64(p.InitialInterval) * math.Pow(p.BackoffCoefficient, float64(attempt-1))
	if d >= float64(p.MaxInterval) || math.IsInf(d, 0) || math.IsNaN(d) {
		return p.MaxInterval
	}
	return time.Duration(d)
}
