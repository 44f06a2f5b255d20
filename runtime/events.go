package runtime

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// EventType names an event. Its string is the "type" field of the event's
// record ([EventRecord]); event contract v1 adds types, never renames or
// removes one.
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
	EventRunFailed              EventType = "run_failed"
	EventRunCancelled           EventType = "run_cancelled"
	EventRunInterrupted         EventType = "run_interrupted"
)

// Event is one typed run event. Each concrete type below implements it;
// [UnknownEvent] stands for a type this release does not know, read from a
// run log a newer release wrote.
type Event interface {
	// Type names the event.
	Type() EventType
	// Run returns the run id.
	Run() string
	// Head returns what every event carries: run, session, sequence
	// number, time, attempt.
	Head() EventHeader
	// withHead returns the event with h as its header.
	withHead(h EventHeader) Event
}

// EventHeader is what every event carries (event contract v1). It is
// embedded in each event type, so its fields read as the event's own
// (ev.RunID, ev.CallID); in a record ([EventRecord]) it is the envelope
// around the event's data.
type EventHeader struct {
	// RunID is the run; SessionID its session ("" for a one-shot run);
	// Agent the agent that runs it.
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id,omitempty"`
	Agent     string `json:"agent,omitempty"`
	// ParentRunID and ParentCallID name the run and the tool call that
	// started this run as a child (agent-as-tool); both are empty for a
	// run started by an application.
	ParentRunID  string `json:"parent_run_id,omitempty"`
	ParentCallID string `json:"parent_call_id,omitempty"`
	// Seq numbers the run's events from 1, without gaps, across the
	// run's continuations: a run log keeps one event per (run, seq).
	Seq int64 `json:"seq"`
	// Time is when the run emitted the event, on the workflow clock.
	Time time.Time `json:"time"`
	// Step is the planning step the event belongs to (1 is the first; 0
	// before it), and CallID the tool call, for the events of one call:
	// together, the planning or tool attempt.
	Step   int    `json:"step,omitempty"`
	CallID string `json:"call_id,omitempty"`
	// Attempt is the attempt of the activity that emitted the event, for
	// the events a running activity emits as it goes (streamed planning
	// output, tool progress): 1 for the first, more after a retry (see
	// [PlanningRetried]). It is 0 on the events the workflow emits.
	Attempt int `json:"attempt,omitempty"`
}

// Run implements [Event].
func (h EventHeader) Run() string { return h.RunID }

// Head implements [Event].
func (h EventHeader) Head() EventHeader { return h }

// RunStarted: a run (or its continuation) began.
type RunStarted struct {
	EventHeader `json:"-"`
	// Continued is set for a continuation after a suspension.
	Continued bool `json:"continued,omitempty"`
}

// Planned: a planning step decided. Its step is [EventHeader.Step].
type Planned struct {
	EventHeader `json:"-"`
	// ToolCalls are the wire names of the planned calls.
	ToolCalls []string `json:"tool_calls,omitempty"`
	// Final is set when the step answered.
	Final bool `json:"final,omitempty"`
	// Text is the assistant's text of the step.
	Text string `json:"text,omitempty"`
}

// ToolCallScheduled: an admitted call is about to run. A run log records
// it before the call's executor is invoked, so a call that was started
// and never finished is known after a crash (see [RunInterrupted]).
type ToolCallScheduled struct {
	EventHeader `json:"-"`
	Tool        tools.Ident `json:"tool"`
	// DisplayHint is the rendered call hint (the tool title when no hint
	// renders).
	DisplayHint string `json:"display_hint,omitempty"`
	// Payload is the canonical payload the executor receives.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// ToolResultReceived: a call finished, was refused without running, or —
// after a crash — has no known outcome (Failure.Code
// [toolcall.KindOutcomeUnknown]).
type ToolResultReceived struct {
	EventHeader `json:"-"`
	Tool        tools.Ident `json:"tool"`
	// Result is the JSON the model sees.
	Result  json.RawMessage   `json:"result,omitempty"`
	Failure *toolcall.Failure `json:"failure,omitempty"`
	Bounds  *toolcall.Bounds  `json:"bounds,omitempty"`
	// DisplayHint is the rendered result hint.
	DisplayHint string `json:"display_hint,omitempty"`
	// Timeline is the call's timeline server data (never sent to models;
	// internal server data is never in an event).
	Timeline []toolcall.ServerData `json:"timeline,omitempty"`
}

// Awaiting: the run suspended.
type Awaiting struct {
	EventHeader `json:"-"`
	Pending     []PendingItem `json:"pending"`
}

// ConfirmationDecided: a pending call was approved or denied. It records
// the digest of the canonical payload the decision was bound to.
type ConfirmationDecided struct {
	EventHeader   `json:"-"`
	Tool          tools.Ident `json:"tool"`
	PayloadDigest string      `json:"payload_digest"`
	Approved      bool        `json:"approved"`
}

// UsageReported: a planning step's model usage.
type UsageReported struct {
	EventHeader `json:"-"`
	Usage       model.Usage `json:"usage"`
}

// RunCompleted: a run ended.
type RunCompleted struct {
	EventHeader `json:"-"`
	Reason      planner.TerminationReason `json:"reason"`
}

// RunFailed: a run ended with an error ([RunHandle.Wait] returns it).
type RunFailed struct {
	EventHeader `json:"-"`
	Error       string `json:"error"`
}

// RunCancelled: a run was cancelled ([RunHandle.Cancel], or its context).
type RunCancelled struct {
	EventHeader `json:"-"`
}

// RunInterrupted: the process running the run stopped (a crash, a kill)
// before the run ended. A runtime on the same run log records it when the
// lease of the run's owner has lapsed ([WithRunLease]); before it, one
// [ToolResultReceived] with failure kind [toolcall.KindOutcomeUnknown]
// reports each call that was started with no recorded outcome. Nothing of
// an interrupted run is run again.
type RunInterrupted struct {
	EventHeader `json:"-"`
	// Owner is the runtime instance that was running the run.
	Owner string `json:"owner"`
	// UnknownCalls are the calls started with no recorded outcome.
	UnknownCalls []string `json:"unknown_calls,omitempty"`
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
	EventHeader `json:"-"`
	Checkpoint  model.CacheCheckpoint `json:"checkpoint"`
}

// RegistryRead: a planning step read a registry's sources once. A read
// conditional on the revision the runtime held answered
// [RegistryRead.NotModified] when the catalog was unchanged.
// [RegistryRead.Stale] is set when the registry could not be read and the
// runtime served its last read instead, [RegistryRead.Age] old, because the
// client's CacheTTL allows it while the registry is unreachable;
// [RegistryRead.Cause] says why the read failed.
type RegistryRead struct {
	EventHeader `json:"-"`
	Registry    string `json:"registry"`
	// Revision is the catalog revision the step's tools come from.
	Revision    int64         `json:"revision"`
	NotModified bool          `json:"not_modified,omitempty"`
	Stale       bool          `json:"stale,omitempty"`
	Age         time.Duration `json:"age_ns,omitempty"`
	Cause       string        `json:"cause,omitempty"`
}

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
func (RunFailed) Type() EventType { return EventRunFailed }

// Type implements [Event].
func (RunCancelled) Type() EventType { return EventRunCancelled }

// Type implements [Event].
func (RunInterrupted) Type() EventType { return EventRunInterrupted }

// Type implements [Event].
func (CacheCheckpointIgnored) Type() EventType { return EventCacheCheckpointIgnored }

// Type implements [Event].
func (RegistryRead) Type() EventType { return EventRegistryRead }

func (e RunStarted) withHead(h EventHeader) Event             { e.EventHeader = h; return e }
func (e Planned) withHead(h EventHeader) Event                { e.EventHeader = h; return e }
func (e ToolCallScheduled) withHead(h EventHeader) Event      { e.EventHeader = h; return e }
func (e ToolResultReceived) withHead(h EventHeader) Event     { e.EventHeader = h; return e }
func (e Awaiting) withHead(h EventHeader) Event               { e.EventHeader = h; return e }
func (e ConfirmationDecided) withHead(h EventHeader) Event    { e.EventHeader = h; return e }
func (e UsageReported) withHead(h EventHeader) Event          { e.EventHeader = h; return e }
func (e RunCompleted) withHead(h EventHeader) Event           { e.EventHeader = h; return e }
func (e RunFailed) withHead(h EventHeader) Event              { e.EventHeader = h; return e }
func (e RunCancelled) withHead(h EventHeader) Event           { e.EventHeader = h; return e }
func (e RunInterrupted) withHead(h EventHeader) Event         { e.EventHeader = h; return e }
func (e CacheCheckpointIgnored) withHead(h EventHeader) Event { e.EventHeader = h; return e }
func (e RegistryRead) withHead(h EventHeader) Event           { e.EventHeader = h; return e }

// Subscribe calls fn with every event of every run this runtime runs, in
// order per run, until the returned function is called: synchronously, in
// the run's own goroutine, before the run goes on — for tests and simple
// hosts in the same process. fn must not block for long: it holds the run.
// A reader in another process, or one that must not hold runs, follows
// the run log instead ([Runtime.Follow], [RunLog]).
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
