package runtime

import (
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// The types of the events a running activity emits as it goes: what the
// model streams while a planning step runs, and what an executor reports
// while its call runs. They are numbered in the run's one sequence like
// every other event, and carry the attempt they belong to
// ([EventHeader.Attempt]): when a planning step is retried, a
// [PlanningRetried] comes first and the events of the failed attempt are
// void. None of them is workflow state: a run replays without them.
const (
	EventTextDelta         EventType = "text_delta"
	EventToolCallStreaming EventType = "tool_call_streaming"
	EventSearchRound       EventType = "search_round"
	EventStreamUsage       EventType = "stream_usage"
	EventPlanningRetried   EventType = "planning_retried"
	EventToolProgress      EventType = "tool_progress"
)

// TextDelta: a piece of the assistant's text, as the model writes it. The
// pieces of one planning attempt, joined, are the text of the step's
// [Planned] event when the attempt succeeds.
type TextDelta struct {
	EventHeader `json:"-"`
	Text        string `json:"text"`
}

// ToolCallStreaming: a call the model is writing — its name is known, its
// arguments are arriving ([EventHeader.CallID] is the call's id). It is
// not a call that runs: only [ToolCallScheduled] says a call was admitted
// and is about to run, and a call the run refuses never gets one. Pieces
// stop once a call's arguments pass [OutputLimits.MaxArgumentBytes]; the
// scheduled call's payload is canonical, the pieces are the model's text.
type ToolCallStreaming struct {
	EventHeader `json:"-"`
	// Tool is the wire name the model called.
	Tool string `json:"tool"`
	// ArgumentsDelta is the next piece of the arguments text (empty on
	// the event announcing the call).
	ArgumentsDelta string `json:"arguments_delta,omitempty"`
}

// SearchRound: a search for deferred tools that the model's adapter
// answered in the middle of a planning step; Found are the wire names it
// made callable.
type SearchRound struct {
	EventHeader `json:"-"`
	Query       string   `json:"query"`
	Found       []string `json:"found,omitempty"`
}

// StreamUsage: the usage of one provider request of a planning step, as
// it completes. The step's total is its [UsageReported].
type StreamUsage struct {
	EventHeader `json:"-"`
	Usage       model.Usage `json:"usage"`
}

// PlanningRetried: the planning step failed and runs again as attempt
// [EventHeader.Attempt]: what the failed attempt streamed is void.
type PlanningRetried struct {
	EventHeader `json:"-"`
}

// ToolProgress: an executor reported progress of its call
// ([tools.ReportProgress]); at most [MaxProgressEvents] per call are
// recorded.
type ToolProgress struct {
	EventHeader `json:"-"`
	Tool        tools.Ident `json:"tool"`
	tools.Progress
}

// MaxProgressEvents bounds the [ToolProgress] events of one call: an
// executor reporting more is not slowed or failed, its further reports
// are dropped.
const MaxProgressEvents = 100

// Type implements [Event].
func (TextDelta) Type() EventType { return EventTextDelta }

// Type implements [Event].
func (ToolCallStreaming) Type() EventType { return EventToolCallStreaming }

// Type implements [Event].
func (SearchRound) Type() EventType { return EventSearchRound }

// Type implements [Event].
func (StreamUsage) Type() EventType { return EventStreamUsage }

// Type implements [Event].
func (PlanningRetried) Type() EventType { return EventPlanningRetried }

// Type implements [Event].
func (ToolProgress) Type() EventType { return EventToolProgress }

func (e TextDelta) withHead(h EventHeader) Event         { e.EventHeader = h; return e }
func (e ToolCallStreaming) withHead(h EventHeader) Event { e.EventHeader = h; return e }
func (e SearchRound) withHead(h EventHeader) Event       { e.EventHeader = h; return e }
func (e StreamUsage) withHead(h EventHeader) Event       { e.EventHeader = h; return e }
func (e PlanningRetried) withHead(h EventHeader) Event   { e.EventHeader = h; return e }
func (e ToolProgress) withHead(h EventHeader) Event      { e.EventHeader = h; return e }
