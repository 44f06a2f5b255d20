package runtimetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// capsSpec builds a valid spec <toolset>.<name>, like newSpec for another
// toolset.
func capsSpec(t *testing.T, toolset, name string, opts ...specOption) tools.ToolSpec {
	t.Helper()
	id, err := tools.NewIdent(toolset, name)
	if err != nil {
		t.Fatal(err)
	}
	s := tools.ToolSpec{
		Name:        id,
		Title:       "Tool " + name,
		Description: "The " + name + " tool.",
		Payload:     mustType(t, `{"type":"object","properties":{"q":{"type":"string"}}}`),
	}
	for _, o := range opts {
		o(&s)
	}
	s.Search = search.NewDocument(s.SearchSource())
	return s
}

// capsExec records the calls of a toolset registered with capsToolset.
type capsExec struct {
	mu    sync.Mutex
	calls []tools.Ident
}

func (e *capsExec) executed() []tools.Ident {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.calls)
}

// capsToolset is a runtime option registering a second toolset (before the
// fixture registers its agent), every call answering {"ok":true}.
func capsToolset(name string, rec *capsExec, specs ...tools.ToolSpec) runtime.Option {
	return func(rt *runtime.Runtime) error {
		return rt.RegisterToolset(runtime.ToolsetRegistration{
			Name:  name,
			Specs: specs,
			Executor: runtime.ToolExecutorFunc(func(_ context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
				rec.mu.Lock()
				rec.calls = append(rec.calls, call.Ident)
				rec.mu.Unlock()
				return &planner.ToolResult{Result: json.RawMessage(`{"ok":true}`)}, nil
			}),
		})
	}
}

// capsFails is a handler whose calls fail (a rejected tool result).
func capsFails() handler {
	return func(context.Context, *runtime.ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{Failure: &planner.ToolFailure{Code: "broken", Message: "The backend is down.", Recovery: planner.RecoveryReplan}}, nil
	}
}

// capsFailure decodes the failure JSON a model reads in a tool result.
type capsFailure struct {
	Error    string `json:"error"`
	Message  string `json:"message"`
	Recovery string `json:"recovery"`
}

func capsDecodeFailure(t *testing.T, r model.ToolResult) capsFailure {
	t.Helper()
	if !r.IsError {
		t.Errorf("result of %s (%s) is not marked as an error: %s", r.CallID, r.Name, r.Content)
	}
	var f capsFailure
	if err := json.Unmarshal(r.Content, &f); err != nil {
		t.Fatalf("result of %s is not failure JSON: %v: %s", r.CallID, err, r.Content)
	}
	return f
}

// capsResultOf returns the single tool result answering callID in msgs.
func capsResultOf(t *testing.T, msgs []model.Message, callID string) model.ToolResult {
	t.Helper()
	var found []model.ToolResult
	for _, r := range toolResults(msgs) {
		if r.CallID == callID {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("call %s has %d results, want 1", callID, len(found))
	}
	return found[0]
}

// capsCheckTranscript fails the test unless every tool call in msgs has
// exactly one result, placed after it and before the next assistant
// message, and every result answers an earlier call.
func capsCheckTranscript(t *testing.T, where string, msgs []model.Message) {
	t.Helper()
	seen := map[string]bool{}
	answered := map[string]int{}
	var open []string
	for i, m := range msgs {
		if m.Role == model.RoleAssistant && len(open) > 0 {
			t.Errorf("%s: message %d: assistant message while calls %v have no result", where, i, open)
			open = nil
		}
		for _, p := range m.Parts {
			if c := p.ToolCall; c != nil {
				if seen[c.ID] {
					t.Errorf("%s: message %d: call id %s used twice", where, i, c.ID)
				}
				seen[c.ID] = true
				open = append(open, c.ID)
			}
			if r := p.ToolResult; r != nil {
				if !seen[r.CallID] {
					t.Errorf("%s: message %d: result for %s answers no earlier call", where, i, r.CallID)
				}
				answered[r.CallID]++
				if answered[r.CallID] > 1 {
					t.Errorf("%s: message %d: call %s answered %d times", where, i, r.CallID, answered[r.CallID])
				}
				open = slices.DeleteFunc(open, func(id string) bool { return id == r.CallID })
			}
		}
	}
	if len(open) > 0 {
		t.Errorf("%s: calls %v have no result", where, open)
	}
}

// capsCheckRun checks the transcript of every request the fixture's model
// recorded, of every planner invocation recorded by p (may be nil), and of
// the run's output.
func capsCheckRun(t *testing.T, f *fixture, p *capsPlanner, out *runtime.RunOutput) {
	t.Helper()
	for i, req := range f.model.Requests() {
		capsCheckTranscript(t, fmt.Sprintf("request %d", i+1), req.Messages)
	}
	if p != nil {
		for i, inv := range p.invocations() {
			capsCheckTranscript(t, fmt.Sprintf("planner invocation %d", i+1), inv.Messages)
		}
	}
	if out != nil {
		capsCheckTranscript(t, "run output", out.Messages)
	}
}

// capsInvocation is what a capsPlanner saw in one planning step.
type capsInvocation struct {
	Start       bool
	Finalize    *planner.Finalize
	ToolOutputs []planner.ToolOutput
	// Tools are the advertised wire names.
	Tools []string
	// Messages are the prepared messages (scripted steps only).
	Messages []model.Message
	// Finalizing is RequestOptions().Finalize.
	Finalizing bool
}

// capsPlanner records every planning step. With steps it plays them in
// order (one per step); without, it delegates to the standard planner.
type capsPlanner struct {
	steps []func() *planner.PlanResult

	mu    sync.Mutex
	calls []capsInvocation
}

func (p *capsPlanner) PlanStart(ctx context.Context, in *planner.PlanInput) (*planner.PlanResult, error) {
	return p.plan(ctx, in, nil)
}

func (p *capsPlanner) PlanResume(ctx context.Context, in *planner.PlanResumeInput) (*planner.PlanResult, error) {
	return p.plan(ctx, &in.PlanInput, in)
}

func (p *capsPlanner) plan(ctx context.Context, in *planner.PlanInput, resume *planner.PlanResumeInput) (*planner.PlanResult, error) {
	inv := capsInvocation{Start: resume == nil, Finalizing: in.Agent.RequestOptions().Finalize}
	if resume != nil {
		if resume.Finalize != nil {
			f := *resume.Finalize
			inv.Finalize = &f
		}
		for _, o := range resume.ToolOutputs {
			o.Result = slices.Clone(o.Result)
			inv.ToolOutputs = append(inv.ToolOutputs, o)
		}
	}
	for _, d := range in.Agent.AdvertisedToolDefinitions() {
		inv.Tools = append(inv.Tools, d.Name)
	}
	if p.steps != nil {
		msgs, err := in.Agent.PrepareMessages(ctx)
		if err != nil {
			return nil, err
		}
		inv.Messages = msgs
	}
	p.mu.Lock()
	i := len(p.calls)
	p.calls = append(p.calls, inv)
	p.mu.Unlock()
	if p.steps == nil {
		if resume == nil {
			return planner.NewStandard().PlanStart(ctx, in)
		}
		return planner.NewStandard().PlanResume(ctx, resume)
	}
	if i >= len(p.steps) {
		return nil, fmt.Errorf("capsPlanner: asked for step %d of %d", i+1, len(p.steps))
	}
	return p.steps[i](), nil
}

func (p *capsPlanner) invocations() []capsInvocation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls)
}

// capsPlan returns a plan with one assistant message holding text (when
// not empty) and the calls, which the plan also requests.
func capsPlan(text string, calls ...planner.ToolRequest) *planner.PlanResult {
	msg := model.Message{Role: model.RoleAssistant}
	if text != "" {
		msg.Parts = append(msg.Parts, model.Text(text))
	}
	for _, c := range calls {
		msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: c.CallID, Name: c.Name, Payload: c.Payload}})
	}
	return &planner.PlanResult{Messages: []model.Message{msg}, ToolCalls: calls}
}

// capsCall is a wire-name tool request.
func capsCall(id, name string) planner.ToolRequest {
	return planner.ToolRequest{CallID: id, Name: name, Payload: json.RawMessage(`{}`)}
}

// capsOutputIDs returns the call ids of tool outputs.
func capsOutputIDs(outs []planner.ToolOutput) []string {
	var ids []string
	for _, o := range outs {
		ids = append(ids, o.CallID)
	}
	return ids
}

// capsResultEvents returns the call ids of the ToolResultReceived events.
func capsResultEvents(f *fixture) []string {
	var ids []string
	for _, e := range eventsOf[runtime.ToolResultReceived](f) {
		ids = append(ids, e.CallID)
	}
	return ids
}
