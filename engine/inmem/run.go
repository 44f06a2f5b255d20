package inmem

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiver-go/quiver/engine"
)

// errFinished is the cancellation cause of a run's context once the run has
// finished; it releases whatever goroutines still hold that context.
var errFinished = errors.New("inmem: workflow finished")

// PanicError is the error Wait returns when workflow code panicked.
type PanicError struct {
	// Workflow is the workflow's registered name and ID its execution id.
	Workflow, ID string
	// Value is the value passed to panic.
	Value any
	// Stack is the panicking goroutine's stack trace.
	Stack []byte
}

// Error implements error.
func (e *PanicError) Error() string {
	return fmt.Sprintf("inmem: workflow %s (id %s) panicked: %v", e.Workflow, e.ID, e.Value)
}

// run is one workflow execution. It is the workflow's engine.WorkflowContext;
// callers outside the workflow see it through handle.
type run struct {
	engine   *Engine
	id       string
	workflow string
	ctx      context.Context
	cancel   context.CancelCauseFunc
	children atomic.Uint64

	mu    sync.Mutex
	timer *time.Timer

	once sync.Once
	done chan struct{}
	out  json.RawMessage // set before done is closed
	err  error           // set before done is closed
}

func newRun(e *Engine, parent context.Context, id, workflow string) *run {
	ctx, cancel := context.WithCancelCause(parent)
	return &run{engine: e, id: id, workflow: workflow, ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// setTimeout ends the run with an error wrapping context.DeadlineExceeded
// once d has passed.
func (r *run) setTimeout(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer = time.AfterFunc(d, func() {
		err := fmt.Errorf("inmem: workflow %s (id %s) exceeded its timeout of %s: %w",
			r.workflow, r.id, d, context.DeadlineExceeded)
		r.cancel(err)
		r.finish(nil, err)
	})
}

// execute runs the workflow function and records its result, turning a
// panic or a runtime.Goexit into an error.
func (r *run) execute(handler engine.WorkflowFunc, input json.RawMessage) {
	var (
		out      json.RawMessage
		err      error
		returned bool
	)
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &PanicError{Workflow: r.workflow, ID: r.id, Value: p, Stack: debug.Stack()}
		} else if !returned {
			err = fmt.Errorf("inmem: workflow %s (id %s) exited without returning (runtime.Goexit)", r.workflow, r.id)
		} else if err == nil && len(out) > 0 && !json.Valid(out) {
			err = fmt.Errorf("inmem: workflow %s (id %s): output is not valid JSON", r.workflow, r.id)
		}
		if err != nil {
			out = nil
			// A workflow that gave up because its timeout cancelled it
			// ended by the timeout: the timer's own finish may come after
			// this one.
			if cause := context.Cause(r.ctx); errors.Is(cause, context.DeadlineExceeded) && r.ctx.Err() != nil {
				err = cause
			}
		}
		r.finish(out, err)
	}()
	out, err = handler(r, input)
	returned = true
}

// finish records the run's result once, frees its id and releases waiters.
func (r *run) finish(out json.RawMessage, err error) {
	r.once.Do(func() {
		r.out, r.err = out, err
		r.mu.Lock()
		if r.timer != nil {
			r.timer.Stop()
		}
		r.mu.Unlock()
		r.engine.release(r)
		close(r.done)
		r.cancel(errFinished)
	})
}

// canceled is the error workflow operations return once the run's context
// is canceled: it wraps engine.ErrCanceled and, for a timeout, the cause.
func (r *run) canceled(op string) error {
	cause := context.Cause(r.ctx)
	if cause == nil || errors.Is(cause, engine.ErrCanceled) {
		return fmt.Errorf("inmem: workflow %s: %s: %w", r.id, op, engine.ErrCanceled)
	}
	return fmt.Errorf("inmem: workflow %s: %s: %w: %w", r.id, op, engine.ErrCanceled, cause)
}

// handle is the engine.WorkflowHandle of a run.
type handle struct{ r *run }

var _ engine.WorkflowHandle = handle{}

// ID implements engine.WorkflowHandle.
func (h handle) ID() string { return h.r.id }

// Wait implements engine.WorkflowHandle. Each call gets its own copy of the
// output; the workflow's error is returned as is.
func (h handle) Wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case <-h.r.done:
		return bytes.Clone(h.r.out), h.r.err
	default:
	}
	select {
	case <-h.r.done:
		return bytes.Clone(h.r.out), h.r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("inmem: wait for workflow %s: %w", h.r.id, ctx.Err())
	}
}

// Cancel implements engine.WorkflowHandle: it cancels the workflow's
// context and returns without waiting. Canceling a finished workflow does
// nothing.
func (h handle) Cancel(context.Context) error {
	select {
	case <-h.r.done:
	default:
		h.r.cancel(engine.ErrCanceled)
	}
	return nil
}
