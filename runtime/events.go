package runtime

import (
	"sync"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// EventType names an event.
type EventType string

// The event types.
const (
	EventRunStarted             EventType = "run_started"
	EventPlanned                EventType = "planned"
	EventToolCallScheduled      EventType = "tool_call_scheduled"
	EventToolResult             EventType = "tool_result"
	EventAwaiting               EventType = "awaiting"
	EventConfirmation           EventType = "confirmation_decided"
	EventUsage                  EventType = "usage"
	EventRunCompleted           EventType = "run_completed"
	EventCacheCheckpointIgnored EventType = "cache_checkpoint_ignored"
	EventRegistryRead           EventType = "registry_read"
)

// Event is one typed run event. Each concrete type below implements it.
type Event interface {
	// Type names the event.
	Type() EventType
	// Run returns the run id.
	Run() string
}

// RunStarted: a run (or its continuation) began.
type RunStarted struct {
	RunID, Agent, SessionID string
	// Continued is set for a continuation after a suspension.
	Continued bool
}

// Planned: a planning step decided.
type Planned struct {
	RunID string
	Step  int
	// ToolCalls are the wire names of the planned calls.
	ToolCalls []string
	// Final is set when the step answered.
	Final bool
	// Text is the assistant's text of the step.
	Text string
}

// ToolCallScheduled: an admitted call is about to run.
type ToolCallScheduled struct {
	RunID, CallID string
	Tool          tools.Ident
	// DisplayHint is the rendered call hint (the tool title when no hint
	// renders).
	DisplayHint string
	Payload     []byte
}

// ToolResultReceived: a call finished (or was refused without running).
type ToolResultReceived struct {
	RunID, CallID string
	Tool          tools.Ident
	// Result is the JSON the model sees.
	Result  []byte
	Failure *toolcall.Failure
	Bounds  *toolcall.Bounds
	// DisplayHint is the rendered result hint.
	DisplayHint string
	// Timeline is the call's timeline server data (never sent to models).
	Timeline []toolcall.ServerData
}

// Awaiting: the run suspended.
type Awaiting struct {
	RunID   string
	Pending []PendingItem
}

// ConfirmationDecided: a pending call was approved or denied. It records
// the digest of the canonical payload the decision was bound to.
type ConfirmationDecided struct {
	RunID, CallID string
	Tool          tools.Ident
	PayloadDigest string
	Approved      bool
}

// UsageReported: a planning step's model usage.
type UsageReported struct {
	RunID string
	Usage model.Usage
}

// RunCompleted: a run ended.
type RunCompleted struct {
	RunID  string
	Reason planner.TerminationReason
}

// CacheCheckpointIgnored: the agent's model could not place a prompt-cache
// checkpoint its run policy asks for ([RunPolicy.Cache]), so the adapter left
// it out of the request ([model.Response.IgnoredCheckpoints]) — a provider
// without prompt caching, or a checkpoint with nothing to follow. The run
// goes on: a checkpoint only saves cost and latency, it never changes what
// the model reads. It is emitted once per run and checkpoint, the first
// time the checkpoint is ignored (continuations after a suspension
// included).
type CacheCheckpointIgnored struct {
	RunID      string
	Checkpoint model.CacheCheckpoint
}

// RegistryRead: a planning step read a registry's sources once. A read
// conditional on the revision the runtime held answered
// [RegistryRead.NotModified] when the catalog was unchanged.
// [RegistryRead.Stale] is set when the registry could not be read and the
// runtime served its last read instead, [RegistryRead.Age] old, because the
// client's CacheTTL allows it while the registry is unreachable;
// [RegistryRead.Cause] says why the read failed.
type RegistryRead struct {
	RunID    string
	Step     int
	Registry string
	// Revision is the catalog revision the step's tools come from.
	Revision    int64
	NotModified bool
	Stale       bool
	Age         time.Duration
	Cause       string
}

// Type implements [Event].
func (RegistryRead) Type() EventType { return EventRegistryRead }

// Run implements [Event].
func (e RegistryRead) Run() string { return e.RunID }

// Type implements [Event].
func (RunStarted) Type() EventType { return EventRunStarted }

// Type implements [Event].
func (Planned) Type() EventType { return EventPlanned }

// Type implements [Event].
func (ToolCallScheduled) Type() EventType { return EventToolCallScheduled }

// Type implements [Event].
func (ToolResultReceived) Type() EventType { return EventToolResult }

// Type implements [Event].
func (Awaiting) Type() EventType { return EventAwaiting }

// Type implements [Event].
func (ConfirmationDecided) Type() EventType { return EventConfirmation }

// Type implements [Event].
func (UsageReported) Type() EventType { return EventUsage }

// Type implements [Event].
func (RunCompleted) Type() EventType { return EventRunCompleted }

// Type implements [Event].
func (CacheCheckpointIgnored) Type() EventType { return EventCacheCheckpointIgnored }

// Run implements [Event].
func (e RunStarted) Run() string { return e.RunID }

// Run implements [Event].
func (e Planned) Run() string { return e.RunID }

// Run implements [Event].
func (e ToolCallScheduled) Run() string { return e.RunID }

// Run implements [Event].
func (e ToolResultReceived) Run() string { return e.RunID }

// Run implements [Event].
func (e Awaiting) Run() string { return e.RunID }

// Run implements [Event].
func (e ConfirmationDecided) Run() string { return e.RunID }

// Run implements [Event].
func (e UsageReported) Run() string { return e.RunID }

// Run implements [Event].
func (e RunCompleted) Run() string { return e.RunID }

// Run implements [Event].
func (e CacheCheckpointIgnored) Run() string { return e.RunID }

// Subscribe calls fn with every event of every run, in order per run,
// until the returned function is called. fn must not block for long.
func (rt *Runtime) Subscribe(fn func(Event)) (unsubscribe func()) {
	return rt.events.subscribe(fn)
}

type eventBus struct {
	mu   sync.RWMutex
	next int
	subs map[int]func(Event)
}

func (b *eventBus) subscribe(fn func(Event)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = make(map[int]func(Event))
	}
	id := b.next
	b.next++
	b.subs[id] = fn
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs, id)
	}
}

func (b *eventBus) publish(e Event) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for id := 0; id < b.next; id++ {
		if fn, ok := b.subs[id]; ok {
			fn(e)
		}
	}
}
