package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// TestAChildsAnswerIsTheParentsToolResult: the call's canonical payload is
// the child's user message, the child's text answer fills the tool's one
// string field, the parent reads it, the child's events name their parent
// and the child's tokens count in the parent's usage.
func TestAChildsAnswerIsTheParentsToolResult(t *testing.T) {
	var childSaw string
	e := newAgentsEnv(t, agentsOptions{},
		[]scripted.Step{scripted.Call("ask", `{ "question" : "why?" }`), scripted.Reply("the specialist says: because")},
		[]scripted.Step{scripted.Func(func(req *model.Request) (*model.Response, error) {
			childSaw = req.Messages[len(req.Messages)-1].TextContent()
			return &model.Response{Messages: []model.Message{model.AssistantMessage("because")}}, nil
		})},
	)
	out := e.run("ask the specialist")
	if out.Status != StatusCompleted || out.Final == nil || out.Final.Text != "the specialist says: because" {
		t.Fatalf("parent = %+v", out)
	}
	if childSaw != `{"question":"why?"}` {
		t.Fatalf("the child's user message = %q, want the canonical payload", childSaw)
	}
	if got, isErr := toolResult(t, out, "call_1"); isErr || got != `{"summary":"because"}` {
		t.Fatalf("the call's result = %s (error %v)", got, isErr)
	}
	child := e.eventsOf(out.RunID + "/call_1")
	if len(child) == 0 {
		t.Fatal("the child emitted no event")
	}
	for _, ev := range child {
		if h := ev.Head(); h.ParentRunID != out.RunID || h.ParentCallID != "call_1" || h.Agent != "specialist" {
			t.Fatalf("child event %T header %+v, want it linked to the parent's call", ev, h)
		}
	}
	info, err := e.rt.RunLog().Run(context.Background(), out.RunID+"/call_1")
	if err != nil || info.ParentRunID != out.RunID || info.Status != StatusCompleted || info.Agent != "specialist" {
		t.Fatalf("the run log's record of the child = %+v, %v", info, err)
	}
	childUsage := model.Usage{}
	for _, ev := range child {
		if u, ok := ev.(UsageReported); ok {
			childUsage = childUsage.Add(u.Usage)
		}
	}
	// The parent reports its own steps' usage, and the child's under the
	// call; its total is both.
	own, viaCall := model.Usage{}, model.Usage{}
	for _, ev := range e.eventsOf(out.RunID) {
		if u, ok := ev.(UsageReported); ok {
			if u.Head().CallID == "call_1" {
				viaCall = viaCall.Add(u.Usage)
			} else {
				own = own.Add(u.Usage)
			}
		}
	}
	if childUsage.OutputTokens == 0 || viaCall != childUsage || out.Usage != own.Add(childUsage) {
		t.Fatalf("parent usage %+v = own %+v + child %+v (reported under the call: %+v)?", out.Usage, own, childUsage, viaCall)
	}
}

// TestAJSONAnswerIsValidatedAgainstTheResultContract: a child answering
// JSON gives that JSON, checked against the tool's result schema; one that
// does not match is an invalid_result failure the parent reads.
func TestAJSONAnswerIsValidatedAgainstTheResultContract(t *testing.T) {
	e := newAgentsEnv(t, agentsOptions{},
		[]scripted.Step{scripted.Call("ask", `{"question":"a"}`), scripted.Call("ask", `{"question":"b"}`), scripted.Reply("done")},
		[]scripted.Step{scripted.Reply(`{"summary":"fine"}`), scripted.Reply(`{"summary":7}`)},
	)
	out := e.run("twice")
	if got, _ := toolResult(t, out, "call_1"); got != `{"summary":"fine"}` {
		t.Fatalf("first = %s", got)
	}
	if got, isErr := toolResult(t, out, "call_2"); !isErr || failureCode(got) != "invalid_result" {
		t.Fatalf("second = %s, want invalid_result", got)
	}
}

// TestAChildsFailureReachesTheParentTyped: the child's model fails; the
// parent reads a tool_error naming the agent and carries on.
func TestAChildsFailureReachesTheParentTyped(t *testing.T) {
	e := newAgentsEnv(t, agentsOptions{},
		[]scripted.Step{scripted.Call("ask", `{"question":"x"}`), scripted.Reply("it failed, sorry")},
		[]scripted.Step{scripted.Fail(errors.New("the model is down"))},
	)
	out := e.run("ask")
	got, isErr := toolResult(t, out, "call_1")
	if !isErr || failureCode(got) != "tool_error" || !strings.Contains(got, "specialist") || !strings.Contains(got, "the model is down") {
		t.Fatalf("result = %s (error %v)", got, isErr)
	}
	if out.Status != StatusCompleted || out.Final.Text != "it failed, sorry" {
		t.Fatalf("parent = %+v", out)
	}
}

// TestAChildOutOfTimeOrCallsIsATypedFailure: a child that spends its time
// budget reads as timeout, one that reaches its cap on tool calls as
// tool_cap — with what it last said.
func TestAChildOutOfTimeOrCallsIsATypedFailure(t *testing.T) {
	slow := fixtureTool{spec: deskSpec(t, "slow"), handler: func(ctx context.Context, _ *ToolCall) (*planner.ToolResult, error) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
		}
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}}
	t.Run("time budget", func(t *testing.T) {
		e := newAgentsEnv(t, agentsOptions{desk: []fixtureTool{slow}, childPolicy: RunPolicy{TimeBudget: 100 * time.Millisecond}},
			[]scripted.Step{scripted.Call("ask", `{"question":"x"}`), scripted.Reply("ok")},
			[]scripted.Step{scripted.Call("slow", `{}`), scripted.Reply("half done")},
		)
		out := e.run("ask")
		if got, isErr := toolResult(t, out, "call_1"); !isErr || failureCode(got) != "timeout" || !strings.Contains(got, "half done") {
			t.Fatalf("result = %s, want timeout with the last answer", got)
		}
	})
	t.Run("tool cap", func(t *testing.T) {
		quick := fixtureTool{spec: deskSpec(t, "quick")}
		e := newAgentsEnv(t, agentsOptions{desk: []fixtureTool{quick}, childPolicy: RunPolicy{MaxToolCalls: 1}},
			[]scripted.Step{scripted.Call("ask", `{"question":"x"}`), scripted.Reply("ok")},
			[]scripted.Step{scripted.Call("quick", `{}`), scripted.Call("quick", `{}`), scripted.Reply("stopped early")},
		)
		out := e.run("ask")
		if got, isErr := toolResult(t, out, "call_1"); !isErr || failureCode(got) != "tool_cap" {
			t.Fatalf("result = %s, want tool_cap", got)
		}
	})
}

// TestCancellingTheParentCancelsTheChild: the child's executor sees its
// context end when the parent run is cancelled.
func TestCancellingTheParentCancelsTheChild(t *testing.T) {
	started := make(chan struct{})
	ended := make(chan error, 1)
	block := fixtureTool{spec: deskSpec(t, "block"), handler: func(ctx context.Context, _ *ToolCall) (*planner.ToolResult, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}}
	e := newAgentsEnv(t, agentsOptions{desk: []fixtureTool{block}},
		[]scripted.Step{scripted.Call("ask", `{"question":"x"}`)},
		[]scripted.Step{scripted.Call("block", `{}`)},
	)
	h, err := e.rt.Start(context.Background(), "parent", RunInput{Messages: []model.Message{model.UserMessage("go")}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the child's tool never started")
	}
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the child's executor saw %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the child's executor never saw its context end")
	}
	if _, err := h.Wait(context.Background()); err == nil {
		t.Fatal("the cancelled parent's Wait returned no error")
	}
}

// TestAConfirmationInsideTheChildSuspendsTheParent: the parent suspends
// with the child's pending item (one entry under the parent's run), and
// Continue on the parent runs the gated tool once and completes both.
func TestAConfirmationInsideTheChildSuspendsTheParent(t *testing.T) {
	gated := fixtureTool{spec: deskSpec(t, "refund", func(s *tools.ToolSpec) {
		s.Confirmation = &tools.ConfirmationSpec{Title: "Refund", PromptTemplate: "Refund {{ .q }}?"}
	})}
	e := newAgentsEnv(t, agentsOptions{desk: []fixtureTool{gated}},
		[]scripted.Step{scripted.Call("ask", `{"question":"refund order 7"}`), scripted.Reply("refunded, says the specialist")},
		[]scripted.Step{scripted.Call("refund", `{"q":"order 7"}`), scripted.Reply("refund done")},
	)
	out := e.run("refund order 7")
	if out.Status != StatusSuspended || out.Suspension == nil || len(out.Suspension.Pending) != 1 {
		t.Fatalf("parent = %+v, want suspended", out)
	}
	item := out.Suspension.Pending[0]
	if item.Tool != "desk.refund" || item.Prompt != "Refund order 7?" {
		t.Fatalf("pending item = %+v, want the child's confirmation", item)
	}
	list, err := e.rt.ListSuspended(context.Background(), SuspendedFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].RunID != out.RunID {
		t.Fatalf("suspended runs = %+v, want the parent alone", list)
	}
	if e.ran("desk.refund") != 0 {
		t.Fatal("the gated tool ran before the decision")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := e.rt.Continue(ctx, out.RunID, item.Approve())
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != StatusCompleted || done.Final.Text != "refunded, says the specialist" {
		t.Fatalf("parent after Continue = %+v", done)
	}
	if got, isErr := toolResult(t, done, "call_1"); isErr || got != `{"summary":"refund done"}` {
		t.Fatalf("the call's result = %s", got)
	}
	if n := e.ran("desk.refund"); n != 1 {
		t.Fatalf("the gated tool ran %d times, want once", n)
	}
	if _, err := e.rt.Continue(ctx, out.RunID, item.Approve()); !errors.Is(err, ErrNotSuspended) {
		t.Fatalf("a second Continue = %v, want ErrNotSuspended", err)
	}
}

// TestACycleOfAgentsIsRefused: the registration that closes a cycle fails
// with the path, and registers nothing.
func TestACycleOfAgentsIsRefused(t *testing.T) {
	rt, err := New(WithModel(model.ModelClassDefault, scripted.New()))
	if err != nil {
		t.Fatal(err)
	}
	spec := func(ts string) []tools.ToolSpec { return []tools.ToolSpec{capsSpec(t, ts, "ask")} }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rt.RegisterToolset(ToolsetRegistration{Name: "b.tools", Specs: spec("b.tools"), Agent: "b"}))
	must(rt.RegisterAgent(AgentRegistration{Name: "a", Uses: []ToolsetUse{{Toolset: "b.tools"}}}))
	must(rt.RegisterToolset(ToolsetRegistration{Name: "a.tools", Specs: spec("a.tools"), Agent: "a"}))
	err = rt.RegisterAgent(AgentRegistration{Name: "b", Uses: []ToolsetUse{{Toolset: "a.tools"}}})
	if err == nil || !strings.Contains(err.Error(), "a uses b.tools (agent b), b uses a.tools (agent a)") {
		t.Fatalf("err = %v, want the cycle's path", err)
	}
	if _, err := rt.agent("b"); err == nil {
		t.Fatal("the refused agent was registered")
	}
	// A self-call through a toolset registered after the agent.
	must(rt.RegisterAgent(AgentRegistration{Name: "c", Uses: []ToolsetUse{{Toolset: "a.tools"}}}))
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "x.tools", Specs: spec("x.tools"), Executor: ToolExecutorFunc(nil)}); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "b.tools2", Specs: spec("b.tools2"), Agent: "a", Executor: ToolExecutorFunc(nil)}); err == nil || !strings.Contains(err.Error(), "both Executor and Agent") {
		t.Fatalf("both set: %v", err)
	}
	// One name, two kinds of toolset: refused, and not as the same
	// toolset registered twice (which generated code skips).
	err = rt.RegisterToolset(ToolsetRegistration{Name: "x.tools", Specs: spec("x.tools"), Agent: "a"})
	if err == nil || errors.Is(err, ErrToolsetRegistered) || !strings.Contains(err.Error(), `run by its executor, and this one running agent "a"`) {
		t.Fatalf("an agent toolset over an executor's name: %v", err)
	}
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "b.tools", Specs: spec("b.tools"), Agent: "b"}); !errors.Is(err, ErrToolsetRegistered) {
		t.Fatalf("the same agent toolset again: %v, want ErrToolsetRegistered", err)
	}
}

// TestTheDepthLimitHolds: with MaxAgentDepth 1 on the first run, the
// specialist's own agent tool is refused with depth_limit, and nothing of
// the grandchild runs.
func TestTheDepthLimitHolds(t *testing.T) {
	leafModel := scripted.New(scripted.Reply("leaf answer"))
	e := &agentsEnv{t: t}
	rt, err := New(WithModelID("parent-model", scripted.New(scripted.Call("ask", `{"question":"deep"}`), scripted.Reply("parent done"))),
		WithModelID("child-model", scripted.New(scripted.Call("ask", `{"question":"deeper"}`), scripted.Reply("middle done"))),
		WithModelID("leaf-model", leafModel))
	if err != nil {
		t.Fatal(err)
	}
	e.rt = rt
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	leafAsk := capsSpec(t, "leaf.tools", "ask", func(s *tools.ToolSpec) { s.Payload = askSpec(t).Payload })
	must(rt.RegisterAgent(AgentRegistration{Name: "leaf", ModelID: "leaf-model"}))
	must(rt.RegisterToolset(ToolsetRegistration{Name: "leaf.tools", Specs: []tools.ToolSpec{leafAsk}, Agent: "leaf"}))
	must(rt.RegisterAgent(AgentRegistration{Name: "specialist", ModelID: "child-model", Uses: []ToolsetUse{{Toolset: "leaf.tools"}}}))
	must(rt.RegisterToolset(ToolsetRegistration{Name: "specialist.tools", Specs: []tools.ToolSpec{askSpec(t)}, Agent: "specialist"}))
	must(rt.RegisterAgent(AgentRegistration{Name: "parent", ModelID: "parent-model", Uses: []ToolsetUse{{Toolset: "specialist.tools"}}, Policy: RunPolicy{MaxAgentDepth: 1}}))
	var mid *RunOutput
	rt.Subscribe(func(ev Event) {
		if c, ok := ev.(ToolResultReceived); ok && c.Tool == "leaf.tools.ask" {
			mid = &RunOutput{Messages: []model.Message{{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "leaf", Content: c.Result, IsError: c.Failure != nil}}}}}}
		}
	})
	out := e.run("go deep")
	if out.Status != StatusCompleted {
		t.Fatalf("parent = %+v", out)
	}
	if mid == nil {
		t.Fatal("the specialist's call of the leaf has no result")
	}
	if got, isErr := toolResult(t, mid, "leaf"); !isErr || failureCode(got) != "depth_limit" || !strings.Contains(got, "MaxAgentDepth") {
		t.Fatalf("the grandchild call = %s, want depth_limit", got)
	}
	if leafModel.Remaining() != 1 {
		t.Fatal("the leaf agent ran")
	}
}

// TestAgentToolsOfABatchRunOneAfterAnother: two calls of an agent tool in
// one batch run in turn (as every call of a batch does): the second child
// starts after the first ended.
func TestAgentToolsOfABatchRunOneAfterAnother(t *testing.T) {
	var active, most int
	step := func(text string) scripted.Step {
		return scripted.Func(func(*model.Request) (*model.Response, error) {
			active++
			most = max(most, active)
			time.Sleep(50 * time.Millisecond)
			active--
			return &model.Response{Messages: []model.Message{model.AssistantMessage(text)}}, nil
		})
	}
	e := newAgentsEnv(t, agentsOptions{},
		[]scripted.Step{scripted.Calls(scripted.ToolCallSpec{Name: "ask", Payload: `{"question":"1"}`}, scripted.ToolCallSpec{Name: "ask", Payload: `{"question":"2"}`}), scripted.Reply("both")},
		[]scripted.Step{step("one"), step("two")},
	)
	out := e.run("two questions")
	if most != 1 {
		t.Fatalf("%d children ran at once, want 1", most)
	}
	a, _ := toolResult(t, out, "call_1")
	b, _ := toolResult(t, out, "call_2")
	if a != `{"summary":"one"}` || b != `{"summary":"two"}` {
		t.Fatalf("results %s, %s", a, b)
	}
}

// TestTheAgentOfAnAdmittedCallIsKept: a call admitted before a suspension
// runs the agent its toolset named then, and meets the result contract of
// then, even when the runtime that continues the run registers the
// toolset with another agent and another result; and a decision carrying
// the wrong digest leaves the item pending.
func TestTheAgentOfAnAdmittedCallIsKept(t *testing.T) {
	store := NewMemoryStore()
	gate := capsSpec(t, "front", "approve", func(s *tools.ToolSpec) {
		s.Confirmation = &tools.ConfirmationSpec{Title: "Approve", PromptTemplate: "Go ahead?"}
	})
	build := func(agent string, ask tools.ToolSpec, parentSteps []scripted.Step, models map[string]*scripted.Client) *Runtime {
		t.Helper()
		opts := []Option{WithStore(store), WithModelID("parent-model", scripted.New(parentSteps...))}
		for name, c := range models {
			opts = append(opts, WithModelID(name+"-model", c))
		}
		rt, err := New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		for name := range models {
			if err := rt.RegisterAgent(AgentRegistration{Name: name, ModelID: name + "-model"}); err != nil {
				t.Fatal(err)
			}
		}
		for _, reg := range []ToolsetRegistration{
			{Name: "specialist.tools", Specs: []tools.ToolSpec{ask}, Agent: agent},
			{Name: "front", Specs: []tools.ToolSpec{gate}, Executor: ToolExecutorFunc(func(context.Context, *ToolCall) (*planner.ToolResult, error) {
				return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
			})},
		} {
			if err := rt.RegisterToolset(reg); err != nil {
				t.Fatal(err)
			}
		}
		if err := rt.RegisterAgent(AgentRegistration{Name: "parent", ModelID: "parent-model", Uses: []ToolsetUse{{Toolset: "specialist.tools"}, {Toolset: "front"}}}); err != nil {
			t.Fatal(err)
		}
		return rt
	}
	first := build("specialist", askSpec(t), []scripted.Step{scripted.Calls(
		scripted.ToolCallSpec{Name: "approve", Payload: `{}`},
		scripted.ToolCallSpec{Name: "ask", Payload: `{"question":"who?"}`},
	)}, map[string]*scripted.Client{"specialist": scripted.New()})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := first.Run(ctx, "parent", RunInput{Messages: []model.Message{model.UserMessage("go")}})
	if err != nil || out.Status != StatusSuspended {
		t.Fatalf("first segment = %+v, %v", out, err)
	}
	// Another process continues it; there the toolset runs "impostor",
	// and its tool's result is {"answer"}.
	specialist := scripted.New(scripted.Reply("the specialist"))
	impostor := scripted.New(scripted.Reply("the impostor"))
	changed := askSpec(t)
	changed.Result = mustType(t, `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)
	second := build("impostor", changed, []scripted.Step{scripted.Reply("done")}, map[string]*scripted.Client{"specialist": specialist, "impostor": impostor})
	item := out.Suspension.Pending[0]
	wrong := item.Approve()
	wrong.Confirmation.PayloadDigest = tools.PayloadDigest([]byte(`{"other":true}`))
	if _, err := second.Continue(ctx, out.RunID, wrong); err == nil {
		t.Fatal("a decision with another payload's digest continued the run")
	}
	h, err := second.Continue(ctx, out.RunID, item.Approve())
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := toolResult(t, done, "call_2"); got != `{"summary":"the specialist"}` {
		t.Fatalf("the admitted call's result = %s, want the specialist's answer under the result contract of admission", got)
	}
	if impostor.Remaining() != 1 || specialist.Remaining() != 0 {
		t.Fatalf("the impostor ran (%d steps left) or the specialist did not (%d)", impostor.Remaining(), specialist.Remaining())
	}
}

// TestTheParentsBudgetCapsTheChilds: a child without a budget of its own
// gets what its parent's had left; its slow tool is cut there and the
// parent reads a timeout.
func TestTheParentsBudgetCapsTheChilds(t *testing.T) {
	slow := fixtureTool{spec: deskSpec(t, "slow"), handler: func(ctx context.Context, _ *ToolCall) (*planner.ToolResult, error) {
		select {
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
		}
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}}
	e := newAgentsEnv(t, agentsOptions{desk: []fixtureTool{slow}, parentPolicy: RunPolicy{TimeBudget: 150 * time.Millisecond}},
		[]scripted.Step{scripted.Call("ask", `{"question":"x"}`), scripted.Reply("out of time")},
		[]scripted.Step{scripted.Call("slow", `{}`), scripted.Reply("partial")},
	)
	out := e.run("ask")
	if got, isErr := toolResult(t, out, "call_1"); !isErr || failureCode(got) != "timeout" {
		t.Fatalf("result = %s, want the child stopped by its parent's budget (timeout)", got)
	}
	if e.ran("desk.slow") != 1 {
		t.Fatal("the child's tool did not run")
	}
}

// TestAChildsToolCallsKnowTheirParent: a tool the child calls gets the
// parent's run and call ids in its call metadata.
func TestAChildsToolCallsKnowTheirParent(t *testing.T) {
	var meta tools.CallMeta
	look := fixtureTool{spec: deskSpec(t, "look"), handler: func(_ context.Context, call *ToolCall) (*planner.ToolResult, error) {
		meta = call.Meta
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}}
	e := newAgentsEnv(t, agentsOptions{desk: []fixtureTool{look}},
		[]scripted.Step{scripted.Call("ask", `{"question":"x"}`), scripted.Reply("ok")},
		[]scripted.Step{scripted.Call("look", `{}`), scripted.Reply("seen")},
	)
	out := e.run("ask")
	if meta.ParentRunID != out.RunID || meta.ParentToolCallID != "call_1" || meta.RunID != out.RunID+"/call_1" {
		t.Fatalf("the child's tool call meta = %+v (parent run %s)", meta, out.RunID)
	}
}

// TestAClarificationAndADenialInsideTheChild: the child's missing field
// suspends the parent with a clarification the answer completes; a denied
// call gets its denied result inside the child, which answers.
func TestAClarificationAndADenialInsideTheChild(t *testing.T) {
	note := fixtureTool{spec: deskSpec(t, "note", withPayload(t, `{"type":"object","properties":{"q":{"type":"string"},"who":{"type":"string"}},"required":["q","who"]}`))}
	gated := fixtureTool{spec: deskSpec(t, "refund", func(s *tools.ToolSpec) {
		s.Confirmation = &tools.ConfirmationSpec{Title: "Refund", PromptTemplate: "Refund {{ .q }}?"}
	})}
	e := newAgentsEnv(t, agentsOptions{desk: []fixtureTool{note, gated}, childPolicy: RunPolicy{InterruptsAllowed: true, OnMissingFields: MissingFieldsAwaitClarification}},
		[]scripted.Step{scripted.Call("ask", `{"question":"note and refund"}`), scripted.Reply("done")},
		[]scripted.Step{scripted.Call("note", `{"q":"x"}`), scripted.Call("refund", `{"q":"7"}`), scripted.Reply("noted; refund refused")},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := e.run("go")
	if out.Status != StatusSuspended || out.Suspension.Pending[0].Kind != PendingClarification {
		t.Fatalf("first = %+v, want the child's clarification", out)
	}
	h, err := e.rt.Continue(ctx, out.RunID, PendingInputResponse{Clarification: &ClarificationAnswer{Fields: []byte(`{"who":"ann"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	next, err := h.Wait(ctx)
	if err != nil || next.Status != StatusSuspended || next.Suspension.Pending[0].Tool != "desk.refund" {
		t.Fatalf("after the clarification = %+v, %v; want the refund's confirmation", next, err)
	}
	h, err = e.rt.Continue(ctx, out.RunID, next.Suspension.Pending[0].Deny())
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.Wait(ctx)
	if err != nil || done.Status != StatusCompleted {
		t.Fatalf("after the denial = %+v, %v", done, err)
	}
	if got, _ := toolResult(t, done, "call_1"); got != `{"summary":"noted; refund refused"}` {
		t.Fatalf("the call's result = %s", got)
	}
	if e.ran("desk.note") != 1 || e.ran("desk.refund") != 0 {
		t.Fatalf("note ran %d times (want 1), refund %d (want 0)", e.ran("desk.note"), e.ran("desk.refund"))
	}
}
