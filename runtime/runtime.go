package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// Engine names used by the runtime.
const (
	workflowRun     = "quiver.run"
	workflowChild   = "quiver.child"
	activityPlan    = "quiver.plan"
	activityExecute = "quiver.execute_tool"
)

// Runtime registers toolsets, agents and models and runs agents.
type Runtime struct {
	engine engine.Engine

	mu        sync.RWMutex
	toolsets  map[string]*toolsetEntry
	tools     map[tools.Ident]*toolEntry
	agents    map[string]*agentEntry
	models    map[model.ModelClass]model.Client
	modelIDs  map[string]model.Client
	overrides map[tools.Ident]string
	confirm   map[tools.Ident]tools.ConfirmationSpec

	registries    map[string]*registryConn
	registryTools RegistryTools
	// contractSpecs caches the compiled specs of saved registry contracts.
	contractSpecs sync.Map
	closing       chan struct{}
	closeOnce     sync.Once

	events eventBus
	// live numbers and records the events activities emit as they run.
	live liveRuns
	// runLog records every run's events; runLogShared is set when it was
	// given (WithRunLog, WithStore), so other runtimes may share it.
	runLog          RunLog
	runLogShared    bool
	runLogRetention time.Duration
	owner           string
	lease           runLease

	sessions    SessionStore
	suspensions SuspensionStore
	// retention is how long a checkpoint is kept (0: until continued).
	retention time.Duration
	ids       idSource
}

// Option configures a [Runtime].
type Option func(*Runtime) error

// WithEngine runs agents on e instead of the in-memory engine.
func WithEngine(e engine.Engine) Option {
	return func(rt *Runtime) error {
		if e == nil {
			return errors.New("WithEngine: engine is nil")
		}
		rt.engine = e
		return nil
	}
}

// WithModel registers the client serving a model class.
func WithModel(class model.ModelClass, c model.Client) Option {
	return func(rt *Runtime) error {
		if c == nil {
			return fmt.Errorf("WithModel(%q): client is nil", class)
		}
		if class == "" {
			class = model.ModelClassDefault
		}
		rt.models[class] = c
		return nil
	}
}

// WithModelID registers the client serving a specific model id.
func WithModelID(id string, c model.Client) Option {
	return func(rt *Runtime) error {
		if c == nil || id == "" {
			return fmt.Errorf("WithModelID(%q): need an id and a client", id)
		}
		rt.modelIDs[id] = c
		return nil
	}
}

// WithHintOverrides replaces the call-hint templates of some tools; an
// override wins over the tool's own template.
func WithHintOverrides(overrides map[tools.Ident]string) Option {
	return func(rt *Runtime) error {
		for id, tmpl := range overrides {
			if _, err := tools.ParseTemplate(string(id), tmpl); err != nil {
				return fmt.Errorf("WithHintOverrides: %s: %w", id, err)
			}
			rt.overrides[id] = tmpl
		}
		return nil
	}
}

// WithToolConfirmation requires confirmation for a tool at run time, as if
// its design declared Confirmation(spec).
func WithToolConfirmation(id tools.Ident, spec tools.ConfirmationSpec) Option {
	return func(rt *Runtime) error {
		if err := id.Validate(); err != nil {
			return fmt.Errorf("WithToolConfirmation: %w", err)
		}
		rt.confirm[id] = spec
		return nil
	}
}

// WithStore keeps session transcripts and suspended runs' checkpoints in
// s instead of memory: a durable backend (runtime/boltstore,
// runtime/redisstore) lets both outlive the process.
func WithStore(s Store) Option {
	return func(rt *Runtime) error {
		if s == nil || s.Sessions() == nil || s.Suspensions() == nil {
			return errors.New("WithStore: store is nil, or gives a nil session or suspension store")
		}
		if s.RunLog() == nil {
			return errors.New("WithStore: store gives a nil run log")
		}
		rt.sessions, rt.suspensions = s.Sessions(), s.Suspensions()
		rt.runLog, rt.runLogShared = s.RunLog(), true
		return nil
	}
}

// WithSessionStore keeps session transcripts in s instead of memory.
func WithSessionStore(s SessionStore) Option {
	return func(rt *Runtime) error {
		if s == nil {
			return errors.New("WithSessionStore: store is nil")
		}
		rt.sessions = s
		return nil
	}
}

// WithSuspensionStore keeps suspended runs' checkpoints in s instead of
// memory.
func WithSuspensionStore(s SuspensionStore) Option {
	return func(rt *Runtime) error {
		if s == nil {
			return errors.New("WithSuspensionStore: store is nil")
		}
		rt.suspensions = s
		return nil
	}
}

// DefaultSuspensionRetention is how long a suspended run waits for its
// answer unless [WithSuspensionRetention] says otherwise: 30 days.
const DefaultSuspensionRetention = 30 * 24 * time.Hour

// WithSuspensionRetention keeps a suspended run's checkpoint for d; a
// Continue after that fails wrapping [ErrSuspensionExpired], and
// [Runtime.ExpireSuspensions] removes and reports it. 0 keeps checkpoints
// until they are continued.
func WithSuspensionRetention(d time.Duration) Option {
	return func(rt *Runtime) error {
		if d < 0 {
			return fmt.Errorf("WithSuspensionRetention(%s): a retention is positive, or 0 for none", d)
		}
		rt.retention = d
		return nil
	}
}

// New returns a runtime on the in-memory engine unless [WithEngine] says
// otherwise.
func New(opts ...Option) (*Runtime, error) {
	memory := NewMemoryStore()
	rt := &Runtime{
		toolsets:    make(map[string]*toolsetEntry),
		tools:       make(map[tools.Ident]*toolEntry),
		agents:      make(map[string]*agentEntry),
		models:      make(map[model.ModelClass]model.Client),
		modelIDs:    make(map[string]model.Client),
		overrides:   make(map[tools.Ident]string),
		confirm:     make(map[tools.Ident]tools.ConfirmationSpec),
		registries:  make(map[string]*registryConn),
		sessions:    memory.Sessions(),
		suspensions: memory.Suspensions(),
		retention:   DefaultSuspensionRetention,
		closing:     make(chan struct{}),
		runLog:      memory.RunLog(),
		owner:       newOwner(),
		lease:       runLease{ttl: DefaultRunLease},

		runLogRetention: DefaultRunLogRetention,
	}
	for _, o := range opts {
		if err := o(rt); err != nil {
			return nil, fmt.Errorf("runtime: %w", err)
		}
	}
	if rt.engine == nil {
		rt.engine = inmem.New()
	}
	if engine.IsDurable(rt.engine) {
		rt.owner += durableOwnerSuffix
	}
	if err := rt.registerEngine(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	if rt.runLogShared {
		rt.keepLease()
	} else {
		// A log in this runtime's memory lives exactly as long as its
		// owner: the lease never lapses.
		rt.lease.until = time.Unix(1<<40, 0)
		_ = rt.runLog.Renew(context.Background(), rt.owner, rt.lease.until)
	}
	return rt, nil
}

func (rt *Runtime) registerEngine() error {
	if err := rt.engine.RegisterWorkflow(engine.Workflow(workflowRun, rt.runWorkflow)); err != nil {
		return err
	}
	if err := rt.engine.RegisterWorkflow(engine.Workflow(workflowChild, rt.childWorkflow)); err != nil {
		return err
	}
	if err := rt.engine.RegisterActivity(engine.Activity(activityPlan, engine.ActivityOptions{}, rt.planActivity)); err != nil {
		return err
	}
	if err := rt.engine.RegisterActivity(engine.Activity(activityExecute, engine.ActivityOptions{}, rt.executeActivity)); err != nil {
		return err
	}
	if err := rt.engine.RegisterActivity(engine.Activity(activitySettle, engine.ActivityOptions{}, rt.settleActivity)); err != nil {
		return err
	}
	return rt.engine.RegisterActivity(engine.Activity(activityRecord, engine.ActivityOptions{}, rt.recordActivity))
}

// modelFor returns the client for an agent's model id or class. Its error
// has no package prefix: it reaches callers through Start or a planner.
func (rt *Runtime) modelFor(id string, class model.ModelClass) (model.Client, error) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	return rt.modelForLocked(id, class)
}

// modelForLocked is modelFor for a caller holding rt.mu.
func (rt *Runtime) modelForLocked(id string, class model.ModelClass) (model.Client, error) {
	if id != "" {
		if c, ok := rt.modelIDs[id]; ok {
			return c, nil
		}
	}
	if class == "" {
		class = model.ModelClassDefault
	}
	if c, ok := rt.models[class]; ok {
		return c, nil
	}
	if id != "" {
		return nil, fmt.Errorf("no model registered for id %q or class %q: add WithModelID or WithModel", id, class)
	}
	return nil, fmt.Errorf("no model registered for class %q: add WithModel(%q, client)", class, class)
}

// Close stops the runtime's background work — the registry refreshes
// SyncInterval starts, the renewal of its lease on the run log, which it
// cancels and waits for, so that a store may be closed right after. Runs
// in flight are not affected; Close is safe to call more than once.
func (rt *Runtime) Close() error {
	rt.closeOnce.Do(func() { close(rt.closing) })
	rt.lease.start.Do(func() {}) // no loop starts after Close
	if rt.lease.stopped != nil {
		<-rt.lease.stopped
	}
	return nil
}
