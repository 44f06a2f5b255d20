package runtime

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/quiver-go/quiver/catalog"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/history"
	"github.com/quiver-go/quiver/runtime/render"
)

// planInput is the planning activity's input.
type planInput struct {
	State    runState          `json:"state"`
	Finalize *planner.Finalize `json:"finalize,omitempty"`
}

// planOutput is the planning activity's output.
type planOutput struct {
	Result planner.PlanResult `json:"result"`
	// Snapshot is the catalog the step planned with; admission uses it.
	Snapshot catalog.Snapshot `json:"snapshot"`
	// Discovery is the run's discovery state after the step.
	Discovery model.DiscoveryState `json:"discovery"`
	Reminders render.ReminderQueue `json:"reminders"`
	// Compacted, when set, replaces the transcript (history compression).
	Compacted []model.Message `json:"compacted,omitempty"`
	// Refused holds, by call id, the failures of calls the model-output
	// limits refused (their arguments are already replaced by {}).
	Refused map[string]*planner.ToolFailure `json:"refused,omitempty"`
	// IgnoredCheckpoints are the cache checkpoints the step's model
	// responses list as ignored (model_notices.go).
	IgnoredCheckpoints []model.CacheCheckpoint `json:"ignored_checkpoints,omitempty"`
	// Contracts holds, by call id, the saved contract of each call the
	// step made to a registry tool.
	Contracts map[string]*savedContract `json:"contracts,omitempty"`
	// Reads reports the step's registry reads.
	Reads []readReport `json:"reads,omitempty"`
	// LastSeq is the sequence number of the last event the step streamed
	// (0: none): the workflow numbers its next events after it.
	LastSeq int64 `json:"last_seq,omitempty"`
}

// planActivity builds the step's catalog once and calls the planner.
func (rt *Runtime) planActivity(ctx context.Context, in planInput) (planOutput, error) {
	a, err := rt.agent(in.State.Agent)
	if err != nil {
		return planOutput{}, err
	}
	// A step that can start work reads its registry sources once and keeps
	// that catalog through inference; a finalizing step only answers, and
	// reads nothing.
	sources := &stepSources{}
	if in.Finalize == nil {
		if sources, err = rt.resolveRegistries(ctx, a, in.State.Labels); err != nil {
			return planOutput{}, err
		}
	}
	cat, err := rt.buildCatalog(a, in.State.Labels, sources)
	if err != nil {
		return planOutput{}, err
	}
	events := rt.newActivityEvents(ctx, in.State.liveHead(in.State.Step+1), in.State.EventSeq)
	if events.head.Attempt > 1 {
		events.emit(PlanningRetried{})
	}
	pc := &plannerContext{rt: rt, agent: a, st: &in.State, catalog: cat, finalize: in.Finalize, reminders: in.State.Reminders,
		stream: newStepStream(events, a.reg.Policy.ModelOutput)}
	pin := planner.PlanInput{
		Agent:     pc,
		RunID:     in.State.RunID,
		SessionID: in.State.SessionID,
		TurnID:    in.State.TurnID,
		Labels:    maps.Clone(in.State.Labels),
	}
	var res *planner.PlanResult
	if !in.State.Started {
		res, err = a.reg.Planner.PlanStart(ctx, &pin)
	} else {
		res, err = a.reg.Planner.PlanResume(ctx, &planner.PlanResumeInput{PlanInput: pin, ToolOutputs: in.State.Outputs, Finalize: in.Finalize})
	}
	lastSeq, logErr := events.close()
	if err != nil {
		return planOutput{}, errors.Join(planningError(a.reg.Name, err), logErr)
	}
	if logErr != nil {
		return planOutput{}, logErr
	}
	if res == nil {
		res = &planner.PlanResult{}
	}
	refused := boundResponse(res, a.reg.Policy.ModelOutput)
	// The step's snapshot, assembled once: the discovery state advanced
	// with what the step's own searches found.
	discovered := catalog.Advance(in.State.Discovery, res.Messages)
	search := catalog.Search{Settings: a.reg.Search}
	if client, err := rt.modelFor(a.reg.ModelID, a.reg.ModelClass); err == nil {
		if si, ok := client.(model.SearchInstructor); ok {
			search.Instruction = si.SearchInstruction(a.reg.Search)
		}
	}
	snap := cat.Snapshot(discovered, search)
	out := planOutput{Result: *res, Snapshot: snap, Discovery: discovered, Reminders: pc.reminders, Compacted: pc.compacted, Refused: refused}
	out.IgnoredCheckpoints = pc.ignored.checkpoints()
	out.Contracts = sources.contracts(cat, res.ToolCalls)
	out.Reads = sources.reports
	if lastSeq > in.State.EventSeq {
		out.LastSeq = lastSeq
	}
	return out, nil
}

// buildCatalog builds an agent's catalog for one planning step.
func (rt *Runtime) buildCatalog(a *agentEntry, labels map[string]string, resolved *stepSources) (*catalog.Catalog, error) {
	n := len(a.tools)
	if resolved != nil {
		n += resolved.count()
	}
	entries := make([]catalog.Entry, 0, n)
	for _, id := range a.tools {
		t, ok := rt.tool(id)
		if !ok {
			return nil, fmt.Errorf("tool %s of agent %q is no longer registered", id, a.reg.Name)
		}
		entries = append(entries, catalog.Entry{Spec: t.spec, Deferred: a.deferred[id]})
	}
	if resolved != nil {
		entries = resolved.appendEntries(entries)
	}
	return catalog.New(entries, a.reg.Policy.Tools, labels)
}

// plannerContext is the planner's view of one planning step.
type plannerContext struct {
	rt       *Runtime
	agent    *agentEntry
	st       *runState
	catalog  *catalog.Catalog
	finalize *planner.Finalize

	mu        sync.Mutex
	prepared  []model.Message
	compacted []model.Message
	reminders render.ReminderQueue

	// ignored gathers the cache checkpoints the model ignored.
	ignored ignoredCheckpoints
	// stream emits what the step's model streams.
	stream *stepStream
}

// StreamChunk implements planner.Context.
func (pc *plannerContext) StreamChunk(c model.Chunk) { pc.stream.chunk(c) }

// AdvertisedToolDefinitions implements planner.Context. A finalizing step
// advertises only terminal tools.
func (pc *plannerContext) AdvertisedToolDefinitions() []model.ToolDefinition {
	defs := pc.catalog.AdvertisedToolDefinitions()
	if pc.finalize == nil {
		return defs
	}
	var out []model.ToolDefinition
	for _, d := range defs {
		if id, ok := pc.catalog.Ident(d.Name); ok {
			if spec, ok := pc.catalog.Spec(id); ok && spec.TerminalRun {
				out = append(out, d)
			}
		}
	}
	return out
}

// PrepareMessages implements planner.Context: the history policy is
// applied the first time a step prepares its messages; reminders queued for
// the step are appended as one <system-reminder> message.
func (pc *plannerContext) PrepareMessages(ctx context.Context) ([]model.Message, error) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.prepared != nil {
		return model.CloneMessages(pc.prepared), nil
	}
	msgs := pc.st.Transcript
	if p := pc.agent.reg.Policy.History; p != nil {
		counter, _ := pc.agent.reg.HistoryModel.(model.TokenCounter)
		out, compacted, err := history.Apply(ctx, p, pc.agent.reg.SystemPrompt, msgs, pc.agent.reg.HistoryModel, counter)
		if err != nil {
			return nil, fmt.Errorf("history of agent %q: %w", pc.agent.reg.Name, err)
		}
		if compacted {
			pc.compacted = model.CloneMessages(out)
		}
		msgs = out
	}
	msgs = model.CloneMessages(msgs)
	texts := append(append([]string(nil), pc.st.ResultReminders...), pc.reminders.Take(pc.st.Step+1)...)
	if m, ok := render.Reminders(texts); ok {
		msgs = append(msgs, m)
	}
	pc.prepared = msgs
	return model.CloneMessages(msgs), nil
}

// SystemPrompt implements planner.Context.
func (pc *plannerContext) SystemPrompt() string { return pc.agent.reg.SystemPrompt }

// Model implements planner.Context.
func (pc *plannerContext) Model(class model.ModelClass) (model.Client, error) {
	if class == "" && pc.agent.reg.ModelClass != "" {
		class = pc.agent.reg.ModelClass
	}
	client, err := pc.rt.modelFor(pc.agent.reg.ModelID, class)
	if err != nil {
		return nil, err
	}
	return &noticingClient{inner: client, ignored: &pc.ignored}, nil
}

// SearchSettings implements planner.Context.
func (pc *plannerContext) SearchSettings() model.SearchSettings { return pc.agent.reg.Search }

// AddReminder implements planner.Context.
func (pc *plannerContext) AddReminder(r planner.Reminder) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.reminders.Add(r)
}

// RemoveReminder implements planner.Context.
func (pc *plannerContext) RemoveReminder(id string) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.reminders.Remove(id)
}

// RequestOptions implements planner.Context.
func (pc *plannerContext) RequestOptions() planner.RequestOptions {
	discovery := pc.st.Discovery
	discovery.Tools = slices.Clone(discovery.Tools)
	return planner.RequestOptions{
		ModelID:   pc.agent.reg.ModelID,
		Class:     pc.agent.reg.ModelClass,
		MaxTokens: pc.agent.reg.MaxTokens,
		Cache:     pc.agent.reg.Policy.Cache,
		Finalize:  pc.finalize != nil,
		Discovery: &discovery,
	}
}

var _ planner.Context = (*plannerContext)(nil)
