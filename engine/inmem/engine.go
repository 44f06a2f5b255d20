package inmem

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/quiver-go/quiver/engine"
)

// ErrAlreadyStarted reports a StartWorkflow or ExecuteChild whose id belongs
// to an execution that is still running.
var ErrAlreadyStarted = errors.New("inmem: workflow id already running")

// Engine runs workflows and activities in goroutines of this process. It is
// safe for concurrent use. Create it with New; the zero value is not usable.
type Engine struct {
	clock func() time.Time
	// slots bounds the number of running activity handlers (nil: no bound).
	slots chan struct{}

	regMu      sync.RWMutex
	workflows  map[string]engine.WorkflowFunc
	activities map[string]*engine.ActivityDefinition

	runMu   sync.Mutex
	running map[string]*run
}

var _ engine.Engine = (*Engine)(nil)

// Option configures an Engine.
type Option func(*Engine)

// WithClock sets the clock read by WorkflowContext.Now (time.Now by
// default). It does not affect timers: Sleep, retry backoff and timeouts use
// the wall clock. It panics if now is nil.
func WithClock(now func() time.Time) Option {
	if now == nil {
		panic("inmem: WithClock: nil clock")
	}
	return func(e *Engine) { e.clock = now }
}

// WithMaxConcurrentActivities bounds how many activity handlers run at once
// across all workflows of the engine; n <= 0 means no bound. An attempt
// waiting for a slot is not yet subject to its StartToCloseTimeout, and a
// slot is held until the handler returns, even if its attempt was abandoned
// after a timeout or cancellation.
func WithMaxConcurrentActivities(n int) Option {
	return func(e *Engine) {
		e.slots = nil
		if n > 0 {
			e.slots = make(chan struct{}, n)
		}
	}
}

// New returns an engine with no workflows or activities registered.
func New(opts ...Option) *Engine {
	e := &Engine{
		clock:      time.Now,
		workflows:  make(map[string]engine.WorkflowFunc),
		activities: make(map[string]*engine.ActivityDefinition),
		running:    make(map[string]*run),
	}
	for _, opt := range opts {
		opt(e)
	}
	return e
}

// RegisterWorkflow makes a workflow startable by name. The name must be
// non-empty and not yet registered as a workflow (engine.ErrAlreadyRegistered
// otherwise); the handler must be non-nil.
func (e *Engine) RegisterWorkflow(def engine.WorkflowDefinition) error {
	if def.Name == "" {
		return errors.New("inmem: register workflow: empty name")
	}
	if def.Handler == nil {
		return fmt.Errorf("inmem: register workflow %q: nil handler", def.Name)
	}
	e.regMu.Lock()
	defer e.regMu.Unlock()
	if _, dup := e.workflows[def.Name]; dup {
		return fmt.Errorf("inmem: register workflow %q: %w", def.Name, engine.ErrAlreadyRegistered)
	}
	e.workflows[def.Name] = def.Handler
	return nil
}

// RegisterActivity makes an activity executable by name. The name must be
// non-empty and not yet registered as an activity (engine.ErrAlreadyRegistered
// otherwise), the handler non-nil and the default options valid (no negative
// durations or attempts, a backoff coefficient of 0 or at least 1).
func (e *Engine) RegisterActivity(def engine.ActivityDefinition) error {
	if def.Name == "" {
		return errors.New("inmem: register activity: empty name")
	}
	if def.Handler == nil {
		return fmt.Errorf("inmem: register activity %q: nil handler", def.Name)
	}
	if err := def.Options.Validate(); err != nil {
		return fmt.Errorf("inmem: register activity %q: %w", def.Name, err)
	}
	e.regMu.Lock()
	defer e.regMu.Unlock()
	if _, dup := e.activities[def.Name]; dup {
		return fmt.Errorf("inmem: register activity %q: %w", def.Name, engine.ErrAlreadyRegistered)
	}
	e.activities[def.Name] = &def
	return nil
}

// StartWorkflow starts a registered workflow in its own goroutine and
// returns its handle at once. ctx governs the start only: canceling it later
// does not cancel the workflow (use the handle's Cancel), but its values are
// visible through WorkflowContext.Context. An empty req.ID gets a random
// unique id; an id still running fails with ErrAlreadyStarted; an
// unregistered workflow fails with engine.ErrUnknownWorkflow. A non-empty
// input must be valid JSON; an empty one is passed as null.
func (e *Engine) StartWorkflow(ctx context.Context, req engine.StartRequest) (engine.WorkflowHandle, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("inmem: start workflow %q: %w", req.Workflow, err)
	}
	if req.Timeout < 0 {
		return nil, fmt.Errorf("inmem: start workflow %q: negative timeout %s", req.Workflow, req.Timeout)
	}
	input := json.RawMessage("null")
	if len(req.Input) > 0 {
		if !json.Valid(req.Input) {
			return nil, fmt.Errorf("inmem: start workflow %q: input is not valid JSON", req.Workflow)
		}
		input = bytes.Clone(req.Input)
	}
	r, err := e.start(context.WithoutCancel(ctx), req.ID, req.Workflow, input, req.Timeout)
	if err != nil {
		return nil, err
	}
	return handle{r}, nil
}

// start registers a run under id (generated when empty) and launches its
// workflow function. parent is the context the run's context derives from.
func (e *Engine) start(parent context.Context, id, workflow string, input json.RawMessage, timeout time.Duration) (*run, error) {
	e.regMu.RLock()
	handler, ok := e.workflows[workflow]
	e.regMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("inmem: start workflow %q: %w", workflow, engine.ErrUnknownWorkflow)
	}
	if id == "" {
		id = workflow + "-" + rand.Text()
	}
	e.runMu.Lock()
	if _, busy := e.running[id]; busy {
		e.runMu.Unlock()
		return nil, fmt.Errorf("inmem: start workflow %q with id %q: %w", workflow, id, ErrAlreadyStarted)
	}
	r := newRun(e, parent, id, workflow)
	e.running[id] = r
	e.runMu.Unlock()

	if timeout > 0 {
		r.setTimeout(timeout)
	}
	go r.execute(handler, input)
	return r, nil
}

// release frees r's id once r has finished.
func (e *Engine) release(r *run) {
	e.runMu.Lock()
	if e.running[r.id] == r {
		delete(e.running, r.id)
	}
	e.runMu.Unlock()
}

// activity returns the registered definition of name.
func (e *Engine) activity(name string) (*engine.ActivityDefinition, bool) {
	e.regMu.RLock()
	def, ok := e.activities[name]
	e.regMu.RUnlock()
	return def, ok
}

// acquire takes an activity slot, waiting until one is free or ctx is done.
func (e *Engine) acquire(ctx context.Context) error {
	if e.slots == nil {
		return nil
	}
	select {
	case e.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// releaseSlot returns a slot taken by acquire.
func (e *Engine) releaseSlot() {
	if e.slots != nil {
		<-e.slots
	}
}
