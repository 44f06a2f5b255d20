package temporal

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/quiver-go/quiver/engine"
)

// Engine is engine.Engine on Temporal: it starts workflows with its client
// and, when made by [NewWorker], executes them on a worker polling its task
// queue. It is safe for concurrent use.
type Engine struct {
	client    client.Client
	taskQueue string
	opts      Options
	// worker is nil for a starter.
	worker worker.Worker

	mu         sync.Mutex
	started    bool
	stopped    bool
	workflows  map[string]engine.WorkflowDefinition
	activities map[string]engine.ActivityDefinition
}

var _ engine.Engine = (*Engine)(nil)

// NewWorker returns an engine whose worker executes, on taskQueue, the
// workflows and activities registered on it, and starts workflows there.
// The worker polls from [Engine.Start] (or the first StartWorkflow) until
// [Engine.Stop]. Every process running runs of the same agents must
// register the same workflows and activities (the same runtime
// registrations) on the same task queue.
func NewWorker(c client.Client, taskQueue string, opts Options) (*Engine, error) {
	e, err := newEngine(c, taskQueue, opts)
	if err != nil {
		return nil, err
	}
	wo := opts.Worker
	if wo.DeadlockDetectionTimeout == 0 {
		wo.DeadlockDetectionTimeout = DefaultDeadlockDetection
	}
	if wo.DefaultHeartbeatThrottleInterval == 0 {
		// The SDK sends heartbeats without a timeout every 30s: a
		// cancelled run's activities would learn of it that late.
		wo.DefaultHeartbeatThrottleInterval = cancellationBeat
	}
	e.worker = worker.New(c, taskQueue, wo)
	return e, nil
}

// NewStarter returns an engine that starts workflows on taskQueue and runs
// none: workers elsewhere ([NewWorker]) execute them. Registrations are
// recorded only to check the names started.
func NewStarter(c client.Client, taskQueue string, opts Options) (*Engine, error) {
	return newEngine(c, taskQueue, opts)
}

func newEngine(c client.Client, taskQueue string, opts Options) (*Engine, error) {
	if c == nil {
		return nil, errors.New("temporal: the client is nil: build one with client.Dial")
	}
	if taskQueue == "" {
		return nil, errors.New("temporal: no task queue: name the queue the workers poll")
	}
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("temporal: %w", err)
	}
	return &Engine{client: c, taskQueue: taskQueue, opts: opts,
		workflows: map[string]engine.WorkflowDefinition{}, activities: map[string]engine.ActivityDefinition{}}, nil
}

// TaskQueue is the queue the engine starts workflows on and polls.
func (e *Engine) TaskQueue() string { return e.taskQueue }

// RegisterWorkflow implements engine.Engine. Registration must precede
// [Engine.Start].
func (e *Engine) RegisterWorkflow(def engine.WorkflowDefinition) error {
	if def.Name == "" || def.Handler == nil {
		return errors.New("temporal: a workflow needs a name and a handler")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return fmt.Errorf("temporal: workflow %s registered after the worker started: register everything before Start", def.Name)
	}
	if _, ok := e.workflows[def.Name]; ok {
		return fmt.Errorf("temporal: workflow %s: %w", def.Name, engine.ErrAlreadyRegistered)
	}
	e.workflows[def.Name] = def
	if e.worker != nil {
		e.worker.RegisterWorkflowWithOptions(e.workflowFunc(def), workflow.RegisterOptions{Name: def.Name})
	}
	return nil
}

// RegisterActivity implements engine.Engine. Registration must precede
// [Engine.Start].
func (e *Engine) RegisterActivity(def engine.ActivityDefinition) error {
	if def.Name == "" || def.Handler == nil {
		return errors.New("temporal: an activity needs a name and a handler")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started {
		return fmt.Errorf("temporal: activity %s registered after the worker started: register everything before Start", def.Name)
	}
	if _, ok := e.activities[def.Name]; ok {
		return fmt.Errorf("temporal: activity %s: %w", def.Name, engine.ErrAlreadyRegistered)
	}
	e.activities[def.Name] = def
	if e.worker != nil {
		e.worker.RegisterActivityWithOptions(e.activityFunc(def), activity.RegisterOptions{Name: def.Name})
	}
	return nil
}

// Start starts polling the task queue (nothing for a starter). It is
// idempotent; StartWorkflow calls it.
func (e *Engine) Start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return errors.New("temporal: the engine was stopped: make a new one")
	}
	if e.started {
		return nil
	}
	if e.worker != nil {
		if err := e.worker.Start(); err != nil {
			return fmt.Errorf("temporal: start the worker on %s: %w", e.taskQueue, err)
		}
	}
	e.started = true
	return nil
}

// Stop stops the worker: it stops polling and waits for the activities it
// runs (up to worker.Options.WorkerStopTimeout). Workflows it was running
// go on on other workers of the task queue, or on the next one started.
func (e *Engine) Stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started && !e.stopped && e.worker != nil {
		e.worker.Stop()
	}
	e.stopped = true
}

// StartWorkflow implements engine.Engine: it starts the workflow on the
// engine's task queue (starting the worker first). An id running already
// is refused.
func (e *Engine) StartWorkflow(ctx context.Context, req engine.StartRequest) (engine.WorkflowHandle, error) {
	if err := e.Start(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	_, known := e.workflows[req.Workflow]
	e.mu.Unlock()
	if !known {
		return nil, fmt.Errorf("temporal: start %q: %w", req.Workflow, engine.ErrUnknownWorkflow)
	}
	if req.Timeout < 0 {
		return nil, fmt.Errorf("temporal: start %s: negative timeout %s", req.Workflow, req.Timeout)
	}
	opts := client.StartWorkflowOptions{
		ID:                       req.ID,
		TaskQueue:                e.taskQueue,
		WorkflowExecutionTimeout: req.Timeout,
		WorkflowTaskTimeout:      e.opts.WorkflowTaskTimeout,
	}
	run, err := e.client.ExecuteWorkflow(ctx, opts, req.Workflow, []byte(req.Input))
	if err != nil {
		return nil, fmt.Errorf("temporal: start %s (id %s): %w", req.Workflow, req.ID, err)
	}
	return &handle{client: e.client, run: run}, nil
}

// Durable implements engine.Durable: a workflow whose worker died goes on
// on another worker of the task queue.
func (e *Engine) Durable() bool { return true }
