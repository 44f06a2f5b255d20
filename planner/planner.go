package planner

import (
	"context"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/tools"
)

// Planner decides an agent's next step.
type Planner interface {
	// PlanStart plans the first step of a run.
	PlanStart(ctx context.Context, in *PlanInput) (*PlanResult, error)
	// PlanResume plans the next step after tool results (or a finalization
	// request).
	PlanResume(ctx context.Context, in *PlanResumeInput) (*PlanResult, error)
}

// PlanInput is what a planner gets for one planning step.
type PlanInput struct {
	// Agent is the planner context of this step.
	Agent Context
	// RunID, SessionID and TurnID identify the run.
	RunID, SessionID, TurnID string
	// Labels are the run labels (a copy).
	Labels map[string]string
}

// PlanResumeInput adds the results of the previous step.
type PlanResumeInput struct {
	PlanInput
	// ToolOutputs are the results of the previous step's calls, compact:
	// successful bookkeeping results are left out (they stay in the
	// transcript and events).
	ToolOutputs []ToolOutput
	// Finalize, when set, asks for a final response now: only terminal
	// tools are advertised (terminal implies bookkeeping, so they are
	// admitted even with the caps spent) and any other call is discarded.
	Finalize *Finalize
}

// Finalize says why the runtime asks the planner to finish.
type Finalize struct {
	Reason TerminationReason
}

// ToolOutput is one executed call as the planner sees it.
type ToolOutput struct {
	CallID string      `json:"call_id"`
	Name   tools.Ident `json:"name"`
	// Result is the result JSON the model sees (bounds projected).
	Result []byte `json:"result,omitempty"`
	// Failure is set when the call failed.
	Failure *ToolFailure `json:"failure,omitempty"`
}

// Context is the planner's view of the run during one planning step.
type Context interface {
	// AdvertisedToolDefinitions returns fresh copies of the definitions the
	// model may see this step (wire names; deferred ones flagged).
	AdvertisedToolDefinitions() []model.ToolDefinition
	// PrepareMessages returns the conversation to send, with the history
	// policy applied (once per planning step) and pending reminders added.
	PrepareMessages(ctx context.Context) ([]model.Message, error)
	// SystemPrompt is the agent's system prompt.
	SystemPrompt() string
	// Model returns the client for a class (ModelClassDefault when "").
	Model(class model.ModelClass) (model.Client, error)
	// SearchSettings are the agent's discovery settings.
	SearchSettings() model.SearchSettings
	// AddReminder queues a reminder for the next model request, subject to
	// its rate limit and per-run cap.
	AddReminder(r Reminder)
	// RemoveReminder drops a queued reminder by id.
	RemoveReminder(id string)
	// RequestOptions are the agent's settings for model requests.
	RequestOptions() RequestOptions
	// StreamChunk hands the runtime a piece of the step's model stream as
	// it arrives (text, a forming call, a search round, a request's
	// usage), for the run's followers. It is only shown: what the step
	// decides is its PlanResult. A planner that does not stream never
	// calls it.
	StreamChunk(c model.Chunk)
}

// RequestOptions are an agent's settings for the model requests of a step.
type RequestOptions struct {
	// ModelID pins a model; Class picks one by class when ModelID is empty.
	ModelID string
	Class   model.ModelClass
	// MaxTokens caps each invocation's output.
	MaxTokens int
	// Cache places prompt-cache checkpoints.
	Cache model.CacheCheckpoints
	// Finalize is set when the step must answer now: only terminal tools
	// are advertised and other calls are discarded.
	Finalize bool
	// Discovery is what the conversation has discovered and the turn's
	// searches used, as the runtime's catalog knows it: planners put it in
	// model.Request.Discovery, so adapters never re-derive it.
	Discovery *model.DiscoveryState
}
