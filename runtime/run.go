package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// ErrMissingLabels is wrapped by [Runtime.Start] when run labels the
// agent's tools need are absent or empty.
var ErrMissingLabels = errors.New("runtime: missing required run labels")

// RunInput is what a run starts from.
type RunInput struct {
	// SessionID groups runs into a conversation; the session's transcript
	// is loaded before the run and saved after. Empty starts a new session
	// named after the run ([Runtime.Start]) or none at all
	// ([Runtime.StartOneShot]).
	SessionID string
	// Messages are the new messages of this turn (usually one user message).
	// Metadata keys under "quiver." (discovery records and the like) are
	// dropped: the runtime honours them only when it or its adapters wrote
	// them (carry such history through [RunInput.SessionID] instead).
	Messages []model.Message
}

// RunOption configures one run.
type RunOption func(*runOptions)

type runOptions struct {
	labels map[string]string
	runID  string
}

// WithLabels sets the run labels: label-backed injected fields read them,
// and policies may filter tools by them.
func WithLabels(labels map[string]string) RunOption {
	return func(o *runOptions) { o.labels = maps.Clone(labels) }
}

// WithRunID sets the run id instead of a generated one.
func WithRunID(id string) RunOption {
	return func(o *runOptions) { o.runID = id }
}

// RunStatus says how a run ended (in [RunOutput]) or where it stands (in
// a run log's [RunInfo]).
type RunStatus string

// The run statuses. A run output is completed or suspended; a run log
// also knows runs still running and runs that failed, were cancelled or
// were interrupted by the end of their process ([RunInterrupted]).
const (
	StatusRunning     RunStatus = "running"
	StatusCompleted   RunStatus = "completed"
	StatusSuspended   RunStatus = "suspended"
	StatusFailed      RunStatus = "failed"
	StatusCancelled   RunStatus = "cancelled"
	StatusInterrupted RunStatus = "interrupted"
)

// RunOutput is a finished (or suspended) run.
type RunOutput struct {
	RunID     string    `json:"run_id"`
	SessionID string    `json:"session_id,omitempty"`
	TurnID    string    `json:"turn_id"`
	Agent     string    `json:"agent"`
	Status    RunStatus `json:"status"`
	// Reason says why a completed run ended.
	Reason planner.TerminationReason `json:"reason,omitempty"`
	// Final is the answer of a run ended by a final response.
	Final *planner.FinalResponse `json:"final,omitempty"`
	// FinalToolResult is the result that ended the run (terminal tool or
	// planner's final tool result).
	FinalToolResult *toolcall.Result `json:"final_tool_result,omitempty"`
	// Suspension is set when [RunOutput.Status] is [StatusSuspended].
	Suspension *RunSuspension `json:"suspension,omitempty"`
	// Messages are the messages this run added to the conversation.
	Messages []model.Message `json:"messages"`
	// Timeline and [RunOutput.Evidence] are the server data the run's tools
	// produced, by audience (internal server data is never kept).
	Timeline  []ServerDataRecord `json:"timeline,omitempty"`
	Evidence  []ServerDataRecord `json:"evidence,omitempty"`
	ToolCalls int                `json:"tool_calls"`
	Usage     model.Usage        `json:"usage"`
	// SessionNotSaved says why a completed run's transcript was not saved
	// to its session ("" when it was, or when the run has none);
	// SessionConflict is set when another run of the session saved first
	// (ErrSessionConflict). Messages still hold what the run added, and
	// Wait returns this output with a [*SessionConflictError].
	SessionNotSaved string `json:"session_not_saved,omitempty"`
	SessionConflict bool   `json:"session_conflict,omitempty"`
}

// PendingKind says what a suspended run waits for.
type PendingKind string

// The pending kinds.
const (
	PendingConfirmation  PendingKind = "confirmation"
	PendingClarification PendingKind = "clarification"
)

// RunSuspension is the checkpoint a suspended run ends with.
// [Runtime.Continue] resumes it by run id; nothing of the run waits in
// memory meanwhile.
type RunSuspension struct {
	RunID   string        `json:"run_id"`
	Pending []PendingItem `json:"pending"`
}

// PendingItem is one thing the caller must answer.
type PendingItem struct {
	Kind   PendingKind `json:"kind"`
	CallID string      `json:"call_id,omitempty"`
	Tool   tools.Ident `json:"tool,omitempty"`
	// Title and [PendingItem.Prompt] are shown to the person asked.
	Title  string `json:"title,omitempty"`
	Prompt string `json:"prompt"`
	// Payload is the call's canonical payload (confirmation): exactly what
	// the prompt renders and what runs if approved.
	Payload json.RawMessage `json:"payload,omitempty"`
	// PayloadDigest is [tools.PayloadDigest] of [PendingItem.Payload]
	// (confirmation). A decision must carry it back: [PendingItem.Approve] and
	// [PendingItem.Deny] do.
	PayloadDigest string `json:"payload_digest,omitempty"`
	// Fields are the missing fields (clarification).
	Fields []string `json:"fields,omitempty"`
}

// PendingInputResponse answers the first pending item of a suspension.
type PendingInputResponse struct {
	// Confirmation answers a confirmation.
	Confirmation *ConfirmationDecision `json:"confirmation,omitempty"`
	// Clarification answers a clarification.
	Clarification *ClarificationAnswer `json:"clarification,omitempty"`
}

// ClarificationAnswer supplies what a clarification asked for.
type ClarificationAnswer struct {
	// Fields is a JSON object with the missing fields of a call.
	Fields json.RawMessage `json:"fields,omitempty"`
	// Text answers a planner's await.
	Text string `json:"text,omitempty"`
}

// RunHandle follows a started run.
type RunHandle struct {
	RunID string
	h     engine.WorkflowHandle
}

// Wait blocks until the run completes or suspends. A failed run's error is
// prefixed once with "runtime: run <id>: ".
func (h *RunHandle) Wait(ctx context.Context) (*RunOutput, error) {
	raw, err := h.h.Wait(ctx)
	if err != nil {
		return nil, fmt.Errorf("runtime: run %s: %w", h.RunID, err)
	}
	var out RunOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("runtime: run %s: decode output: %w", h.RunID, err)
	}
	if out.SessionConflict {
		return &out, &SessionConflictError{Output: &out}
	}
	return &out, nil
}

// Cancel stops the run.
func (h *RunHandle) Cancel(ctx context.Context) error { return h.h.Cancel(ctx) }

// Start starts a run of agent and returns at once. It fails before
// anything runs — no model request made — when required run labels are
// missing, naming all of them, and when the agent defers tools its model
// cannot search ([model.CheckSearch]: the same check [Runtime.RegisterAgent]
// makes when the model is known then) or no model is registered for it.
func (rt *Runtime) Start(ctx context.Context, agent string, in RunInput, opts ...RunOption) (*RunHandle, error) {
	return rt.start(ctx, agent, in, false, opts)
}

// StartOneShot starts a run outside any session: no history is loaded or
// saved.
func (rt *Runtime) StartOneShot(ctx context.Context, agent string, in RunInput, opts ...RunOption) (*RunHandle, error) {
	return rt.start(ctx, agent, in, true, opts)
}

// Run starts a run and waits for it.
func (rt *Runtime) Run(ctx context.Context, agent string, in RunInput, opts ...RunOption) (*RunOutput, error) {
	h, err := rt.Start(ctx, agent, in, opts...)
	if err != nil {
		return nil, err
	}
	return h.Wait(ctx)
}

func (rt *Runtime) start(ctx context.Context, agent string, in RunInput, oneShot bool, opts []RunOption) (*RunHandle, error) {
	a, err := rt.agent(agent)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	if err := rt.checkRunSearch(a); err != nil {
		return nil, fmt.Errorf("runtime: run of agent %q: %w", agent, err)
	}
	if err := rt.checkRunRegistries(a); err != nil {
		return nil, fmt.Errorf("runtime: run: %w", err)
	}
	var o runOptions
	for _, opt := range opts {
		opt(&o)
	}
	if missing := missingLabels(rt.requiredLabels(a), o.labels); len(missing) > 0 {
		return nil, fmt.Errorf("%w for agent %q: %s; pass them with runtime.WithLabels", ErrMissingLabels, agent, strings.Join(missing, ", "))
	}
	if len(in.Messages) == 0 {
		return nil, fmt.Errorf("runtime: run of agent %q has no input messages", agent)
	}
	st := runState{
		RunID:     o.runID,
		SessionID: in.SessionID,
		Agent:     agent,
		OneShot:   oneShot,
		Labels:    o.labels,
	}
	if st.RunID == "" {
		st.RunID = rt.ids.next("run")
	}
	st.TurnID = st.RunID + "/turn"
	if !oneShot {
		if st.SessionID == "" {
			st.SessionID = st.RunID
		}
		history, err := rt.sessions.Load(ctx, st.SessionID)
		if err != nil {
			return nil, fmt.Errorf("runtime: load session %q: %w", st.SessionID, err)
		}
		st.Transcript, st.SessionVersion = history.Messages, history.Version
	}
	st.TurnStart = len(st.Transcript)
	st.Transcript = append(st.Transcript, untrusted(in.Messages)...)
	// A run is a turn: it starts with what the conversation discovered
	// before and no search spent.
	st.Discovery = catalog.NewTurn(st.Transcript)
	return rt.launch(ctx, workflowInput{State: st}, a)
}

// Continue answers the first pending item of a suspended run and starts its
// continuation. The run's checkpoint is taken from the suspension store:
// of concurrent Continue calls on one run, in this process or in others
// sharing the store, one continues it and the others fail wrapping
// [ErrNotSuspended] (and [ErrSuspensionExpired] past its retention). A
// wrong answer leaves the run suspended for the right one.
func (rt *Runtime) Continue(ctx context.Context, runID string, resp PendingInputResponse) (*RunHandle, error) {
	c, err := rt.suspensions.Take(ctx, runID, time.Now())
	switch {
	case errors.Is(err, ErrNotSuspended):
		return nil, err // it names the run and why
	case err != nil:
		return nil, fmt.Errorf("runtime: continue run %q: %w", runID, err)
	}
	var st runState
	if err := json.Unmarshal(c.State, &st); err != nil {
		return nil, rt.putBack(ctx, c, fmt.Errorf("runtime: continue run %q: its stored state does not decode: %w", runID, err))
	}
	a, err := rt.agent(st.Agent)
	if err != nil {
		return nil, rt.putBack(ctx, c, fmt.Errorf("runtime: %w", err))
	}
	if err := rt.checkAnswer(&st, resp); err != nil {
		return nil, rt.putBack(ctx, c, err)
	}
	h, err := rt.launch(ctx, workflowInput{State: st, Resume: &resp}, a)
	if err != nil {
		return nil, rt.putBack(ctx, c, err)
	}
	return h, nil
}

// putBack restores a checkpoint Continue took but could not continue, and
// returns why it could not (with the put's failure, if any: the run is
// then lost, and the error says so).
func (rt *Runtime) putBack(ctx context.Context, c Checkpoint, why error) error {
	if err := rt.suspensions.Put(context.WithoutCancel(ctx), c); err != nil {
		return errors.Join(why, fmt.Errorf("runtime: run %q could not be put back in the suspension store, and is no longer suspended: %w", c.RunID, err))
	}
	return why
}

// ListSuspended returns the suspended runs f selects, oldest first, with
// their pending items: what an approval UI shows. Answer one with
// [Runtime.Continue] and the item's [PendingItem.Approve] or
// [PendingItem.Deny].
func (rt *Runtime) ListSuspended(ctx context.Context, f SuspendedFilter) ([]Checkpoint, error) {
	out, err := rt.suspensions.List(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("runtime: list suspended runs: %w", err)
	}
	return out, nil
}

// ExpireSuspensions removes the checkpoints kept past their retention
// ([WithSuspensionRetention]) and returns them, so that their expiry is
// reported (an operator's job calls it, or logs what it returns). A
// Continue of an expired run fails wrapping [ErrSuspensionExpired] either
// way.
func (rt *Runtime) ExpireSuspensions(ctx context.Context) ([]Checkpoint, error) {
	out, err := rt.suspensions.Expire(ctx, time.Now())
	if err != nil {
		return nil, fmt.Errorf("runtime: expire suspended runs: %w", err)
	}
	return out, nil
}

// checkRunSearch reports, before a run of a starts, whether the client
// serving a's model can discover a's deferred tools. An agent that defers
// tools needs its model registered: without it the runtime can neither
// check the search nor name it in refusals.
func (rt *Runtime) checkRunSearch(a *agentEntry) error {
	names := deferredNames(a.deferred, a.reg.Registries)
	if len(names) == 0 {
		return nil
	}
	client, err := rt.modelFor(a.reg.ModelID, a.reg.ModelClass)
	if err != nil {
		return fmt.Errorf("it defers tools, so its model must search them: %w", err)
	}
	return checkSearch(client, a.reg.Search, names)
}

// checkRunRegistries reports, before a run of a starts, a registry the
// agent declares that no client is connected for.
func (rt *Runtime) checkRunRegistries(a *agentEntry) error {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	for _, u := range a.reg.Registries {
		if rt.registries[u.Registry] == nil {
			return &RegistrySourceError{Agent: a.reg.Name, Source: u, Reason: SourceNotRegistered,
				Err: fmt.Errorf("connect it with rt.RegisterRegistry(%q, client) before running the agent", u.Registry)}
		}
	}
	return nil
}

func (rt *Runtime) launch(ctx context.Context, in workflowInput, a *agentEntry) (*RunHandle, error) {
	if err := rt.holdLease(ctx); err != nil {
		return nil, err
	}
	raw, err := engine.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("runtime: encode run state: %w", err)
	}
	req := engine.StartRequest{ID: in.State.RunID + "#" + rt.ids.next("seg"), Workflow: workflowRun, Input: raw}
	if b := a.reg.Policy.budget(); b > 0 {
		// The engine's own deadline leaves the finalizer its grace and some
		// headroom; the runtime enforces the budget itself.
		req.Timeout = b - in.State.Elapsed + 2*a.reg.Policy.grace()
	}
	h, err := rt.engine.StartWorkflow(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("runtime: start run %s: %w", in.State.RunID, err)
	}
	return &RunHandle{RunID: in.State.RunID, h: h}, nil
}

// untrusted returns copies of caller-supplied messages without the
// metadata the runtime owns (keys under "quiver.": discovery records, turn
// markers, history summaries). Those are honoured only when the runtime or
// its adapters wrote them: a discovery record in an input message could
// otherwise admit a deferred tool no search found. Other provider metadata
// passes through: it can change what a provider shows the model, never
// what admission allows. History the runtime must honour travels through a
// session (RunInput.SessionID), whose store holds what the runtime wrote.
func untrusted(msgs []model.Message) []model.Message {
	out := model.CloneMessages(msgs)
	for i := range out {
		maps.DeleteFunc(out[i].Meta, func(k string, _ json.RawMessage) bool { return strings.HasPrefix(k, runtimeMetaPrefix) })
		if len(out[i].Meta) == 0 {
			out[i].Meta = nil
		}
	}
	return out
}

// runtimeMetaPrefix starts every message-metadata key the runtime and its
// adapters write and alone may write.
const runtimeMetaPrefix = "quiver."

// missingLabels returns the required labels absent (or empty) in labels, sorted.
func missingLabels(required []string, labels map[string]string) []string {
	var out []string
	for _, l := range required {
		// An empty value is no value: injection would refuse it mid-run.
		if labels[l] == "" {
			out = append(out, l)
		}
	}
	return out
}
