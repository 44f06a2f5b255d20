package runtimetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// testAChildsAnswerIsTheParentsToolResult: the call's canonical payload is
// the child's user message, the child's text answer fills the tool's one
// string field, the parent reads it, the child's events name their parent
// and the child's tokens count in the parent's usage.
func testAChildsAnswerIsTheParentsToolResult(t *testing.T, newEngine NewEngine) {
	var childSaw guarded[string]
	e := newAgentsEnv(t, newEngine, agentsOptions{},
		[]scripted.Step{scripted.Call("ask", `{ "question" : "why?" }`), scripted.Reply("the specialist says: because")},
		[]scripted.Step{scripted.Func(func(req *model.Request) (*model.Response, error) {
			childSaw.set(req.Messages[len(req.Messages)-1].TextContent())
			return &model.Response{Messages: []model.Message{model.AssistantMessage("because")}}, nil
		})},
	)
	out := e.run("ask the specialist")
	if out.Status != runtime.StatusCompleted || out.Final == nil || out.Final.Text != "the specialist says: because" {
		t.Fatalf("parent = %+v", out)
	}
	if got := childSaw.get(); got != `{"question":"why?"}` {
		t.Fatalf("the child's user message = %q, want the canonical payload", got)
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
	if err != nil || info.ParentRunID != out.RunID || info.Status != runtime.StatusCompleted || info.Agent != "specialist" {
		t.Fatalf("the run log's record of the child = %+v, %v", info, err)
	}
	childUsage := model.Usage{}
	for _, ev := range child {
		if u, ok := ev.(runtime.UsageReported); ok {
			childUsage = childUsage.Add(u.Usage)
		}
	}
	// The parent reports its own steps' usage, and the child's under the
	// call; its total is both.
	own, viaCall := model.Usage{}, model.Usage{}
	for _, ev := range e.eventsOf(out.RunID) {
		if u, ok := ev.(runtime.UsageReported); ok {
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

// testAJSONAnswerIsValidatedAgainstTheResultContract: a child answering
// JSON gives that JSON, checked against the tool's result schema; one that
// does not match is an invalid_result failure the parent reads.
func testAJSONAnswerIsValidatedAgainstTheResultContract(t *testing.T, newEngine NewEngine) {
	e := newAgentsEnv(t, newEngine, agentsOptions{},
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

// testAChildsFailureReachesTheParentTyped: the child's model fails; the
// parent reads a tool_error naming the agent and carries on.
func testAChildsFailureReachesTheParentTyped(t *testing.T, newEngine NewEngine) {
	e := newAgentsEnv(t, newEngine, agentsOptions{},
		[]scripted.Step{scripted.Call("ask", `{"question":"x"}`), scripted.Reply("it failed, sorry")},
		[]scripted.Step{scripted.Fail(errors.New("the model is down"))},
	)
	out := e.run("ask")
	got, isErr := toolResult(t, out, "call_1")
	if !isErr || failureCode(got) != "tool_error" || !strings.Contains(got, "specialist") || !strings.Contains(got, "the model is down") {
		t.Fatalf("result = %s (error %v)", got, isErr)
	}
	if out.Status != runtime.StatusCompleted || out.Final.Text != "it failed, sorry" {
		t.Fatalf("parent = %+v", out)
	}
}

// testAChildOutOfTimeOrCallsIsATypedFailure: a child that spends its time
// budget reads as timeout, one that reaches its cap on tool calls as
// tool_cap — with what it last said.
func testAChildOutOfTimeOrCallsIsATypedFailure(t *testing.T, newEngine NewEngine) {
	slow := fixtureTool{spec: deskSpec(t, "slow"), handler: func(ctx context.Context, _ *runtime.ToolCall) (*planner.ToolResult, error) {
		select {
		case <-time.After(20 * time.Second):
		case <-ctx.Done():
		}
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}}
	t.Run("time budget", func(t *testing.T) {
		e := newAgentsEnv(t, newEngine, agentsOptions{desk: []fixtureTool{slow}, childPolicy: runtime.RunPolicy{TimeBudget: time.Second}},
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
		e := newAgentsEnv(t, newEngine, agentsOptions{desk: []fixtureTool{quick}, childPolicy: runtime.RunPolicy{MaxToolCalls: 1}},
			[]scripted.Step{scripted.Call("ask", `{"question":"x"}`), scripted.Reply("ok")},
			[]scripted.Step{scripted.Call("quick", `{}`), scripted.Call("quick", `{}`), scripted.Reply("stopped early")},
		)
		out := e.run("ask")
		if got, isErr := toolResult(t, out, "call_1"); !isErr || failureCode(got) != "tool_cap" {
			t.Fatalf("result = %s, want tool_cap", got)
		}
	})
}

// testCancellingTheParentCancelsTheChild: the child's executor sees its
// context end when the parent run is cancelled.
func testCancellingTheParentCancelsTheChild(t *testing.T, newEngine NewEngine) {
	started := make(chan struct{})
	var once sync.Once
	ended := make(chan error, 1)
	block := fixtureTool{spec: deskSpec(t, "block"), handler: func(ctx context.Context, _ *runtime.ToolCall) (*planner.ToolResult, error) {
		once.Do(func() { close(started) })
		<-ctx.Done()
		select {
		case ended <- ctx.Err():
		default:
		}
		return nil, ctx.Err()
	}}
	e := newAgentsEnv(t, newEngine, agentsOptions{desk: []fixtureTool{block}},
		[]scripted.Step{scripted.Call("ask", `{"question":"x"}`)},
		[]scripted.Step{scripted.Call("block", `{}`)},
	)
	h, err := e.rt.Start(context.Background(), "parent", runtime.RunInput{Messages: []model.Message{model.UserMessage("go")}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(runTimeout):
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
	case <-time.After(runTimeout):
		t.Fatal("the child's executor never saw its context end")
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	if _, err := h.Wait(ctx); err == nil {
		t.Fatal("the cancelled parent's Wait returned no error")
	}
}

// testAConfirmationInsideTheChildSuspendsTheParent: the parent suspends
// with the child's pending item (one entry under the parent's run), and
// Continue on the parent runs the gated tool once and completes both.
func testAConfirmationInsideTheChildSuspendsTheParent(t *testing.T, newEngine NewEngine) {
	gated := fixtureTool{spec: deskSpec(t, "refund", func(s *tools.ToolSpec) {
		s.Confirmation = &tools.ConfirmationSpec{Title: "Refund", PromptTemplate: "Refund {{ .q }}?"}
	})}
	e := newAgentsEnv(t, newEngine, agentsOptions{desk: []fixtureTool{gated}},
		[]scripted.Step{scripted.Call("ask", `{"question":"refund order 7"}`), scripted.Reply("refunded, says the specialist")},
		[]scripted.Step{scripted.Call("refund", `{"q":"order 7"}`), scripted.Reply("refund done")},
	)
	out := e.run("refund order 7")
	if out.Status != runtime.StatusSuspended || out.Suspension == nil || len(out.Suspension.Pending) != 1 {
		t.Fatalf("parent = %+v, want suspended", out)
	}
	item := out.Suspension.Pending[0]
	if item.Tool != "desk.refund" || item.Prompt != "Refund order 7?" {
		t.Fatalf("pending item = %+v, want the child's confirmation", item)
	}
	list, err := e.rt.ListSuspended(context.Background(), runtime.SuspendedFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].RunID != out.RunID {
		t.Fatalf("suspended runs = %+v, want the parent alone", list)
	}
	if e.ran("desk.refund") != 0 {
		t.Fatal("the gated tool ran before the decision")
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	h, err := e.rt.Continue(ctx, out.RunID, item.Approve())
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != runtime.StatusCompleted || done.Final.Text != "refunded, says the specialist" {
		t.Fatalf("parent after Continue = %+v", done)
	}
	if got, isErr := toolResult(t, done, "call_1"); isErr || got != `{"summary":"refund done"}` {
		t.Fatalf("the call's result = %s", got)
	}
	if n := e.ran("desk.refund"); n != 1 {
		t.Fatalf("the gated tool ran %d times, want once", n)
	}
	if _, err := e.rt.Continue(ctx, out.RunID, item.Approve()); !errors.Is(err, runtime.ErrNotSuspended) {
		t.Fatalf("a second Continue = %v, want ErrNotSuspended", err)
	}
}

// testTheDepthLimitHolds: with MaxAgentDepth 1 on the first run, the
// specialist's own agent tool is refused with depth_limit, and nothing of
// the grandchild runs.
func testTheDepthLimitHolds(t *testing.T, newEngine NewEngine) {
	leafModel := scripted.New(scripted.Reply("leaf answer"))
	e := &agentsEnv{t: t}
	rt, err := runtime.New(runtime.WithEngine(newEngine(t)), runtime.WithModelID("parent-model", scripted.New(scripted.Call("ask", `{"question":"deep"}`), scripted.Reply("parent done"))),
		runtime.WithModelID("child-model", scripted.New(scripted.Call("ask", `{"question":"deeper"}`), scripted.Reply("middle done"))),
		runtime.WithModelID("leaf-model", leafModel))
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
	must(rt.RegisterAgent(runtime.AgentRegistration{Name: "leaf", ModelID: "leaf-model"}))
	must(rt.RegisterToolset(runtime.ToolsetRegistration{Name: "leaf.tools", Specs: []tools.ToolSpec{leafAsk}, Agent: "leaf"}))
	must(rt.RegisterAgent(runtime.AgentRegistration{Name: "specialist", ModelID: "child-model", Uses: []runtime.ToolsetUse{{Toolset: "leaf.tools"}}}))
	must(rt.RegisterToolset(runtime.ToolsetRegistration{Name: "specialist.tools", Specs: []tools.ToolSpec{askSpec(t)}, Agent: "specialist"}))
	must(rt.RegisterAgent(runtime.AgentRegistration{Name: "parent", ModelID: "parent-model", Uses: []runtime.ToolsetUse{{Toolset: "specialist.tools"}}, Policy: runtime.RunPolicy{MaxAgentDepth: 1}}))
	out := e.run("go deep")
	if out.Status != runtime.StatusCompleted {
		t.Fatalf("parent = %+v", out)
	}
	var mid *runtime.RunOutput
	for _, ev := range logEvents(t, rt.RunLog()) {
		if c, ok := ev.(runtime.ToolResultReceived); ok && c.Tool == "leaf.tools.ask" {
			mid = &runtime.RunOutput{Messages: []model.Message{{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "leaf", Content: c.Result, IsError: c.Failure != nil}}}}}}
		}
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

// testAgentToolsOfABatchRunOneAfterAnother: two calls of an agent tool in
// one batch run in turn (as every call of a batch does): the second child
// starts after the first ended.
func testAgentToolsOfABatchRunOneAfterAnother(t *testing.T, newEngine NewEngine) {
	var mu sync.Mutex
	var active, most int
	step := func(text string) scripted.Step {
		return scripted.Func(func(*model.Request) (*model.Response, error) {
			mu.Lock()
			active++
			most = max(most, active)
			mu.Unlock()
			// A child still running when the other starts would be seen.
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			active--
			mu.Unlock()
			return &model.Response{Messages: []model.Message{model.AssistantMessage(text)}}, nil
		})
	}
	e := newAgentsEnv(t, newEngine, agentsOptions{},
		[]scripted.Step{scripted.Calls(scripted.ToolCallSpec{Name: "ask", Payload: `{"question":"1"}`}, scripted.ToolCallSpec{Name: "ask", Payload: `{"question":"2"}`}), scripted.Reply("both")},
		[]scripted.Step{step("one"), step("two")},
	)
	out := e.run("two questions")
	mu.Lock()
	defer mu.Unlock()
	if most != 1 {
		t.Fatalf("%d children ran at once, want 1", most)
	}
	a, _ := toolResult(t, out, "call_1")
	b, _ := toolResult(t, out, "call_2")
	if a != `{"summary":"one"}` || b != `{"summary":"two"}` {
		t.Fatalf("results %s, %s", a, b)
	}
}

// testTheAgentOfAnAdmittedCallIsKept: a call admitted before a suspension
// runs the agent its toolset named then, and meets the result contract of
// then, even when the runtime that continues the run registers the
// toolset with another agent and another result; and a decision carrying
// the wrong digest leaves the item pending.
func testTheAgentOfAnAdmittedCallIsKept(t *testing.T, newEngine NewEngine) {
	store := runtime.NewMemoryStore()
	gate := capsSpec(t, "front", "approve", func(s *tools.ToolSpec) {
		s.Confirmation = &tools.ConfirmationSpec{Title: "Approve", PromptTemplate: "Go ahead?"}
	})
	build := func(agent string, ask tools.ToolSpec, parentSteps []scripted.Step, models map[string]*scripted.Client) *runtime.Runtime {
		t.Helper()
		opts := []runtime.Option{runtime.WithEngine(newEngine(t)), runtime.WithStore(store), runtime.WithModelID("parent-model", scripted.New(parentSteps...))}
		for name, c := range models {
			opts = append(opts, runtime.WithModelID(name+"-model", c))
		}
		rt, err := runtime.New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		for name := range models {
			if err := rt.RegisterAgent(runtime.AgentRegistration{Name: name, ModelID: name + "-model"}); err != nil {
				t.Fatal(err)
			}
		}
		for _, reg := range []runtime.ToolsetRegistration{
			{Name: "specialist.tools", Specs: []tools.ToolSpec{ask}, Agent: agent},
			{Name: "front", Specs: []tools.ToolSpec{gate}, Executor: runtime.ToolExecutorFunc(func(context.Context, *runtime.ToolCall) (*planner.ToolResult, error) {
				return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
			})},
		} {
			if err := rt.RegisterToolset(reg); err != nil {
				t.Fatal(err)
			}
		}
		if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "parent", ModelID: "parent-model", Uses: []runtime.ToolsetUse{{Toolset: "specialist.tools"}, {Toolset: "front"}}}); err != nil {
			t.Fatal(err)
		}
		return rt
	}
	first := build("specialist", askSpec(t), []scripted.Step{scripted.Calls(
		scripted.ToolCallSpec{Name: "approve", Payload: `{}`},
		scripted.ToolCallSpec{Name: "ask", Payload: `{"question":"who?"}`},
	)}, map[string]*scripted.Client{"specialist": scripted.New()})
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	out, err := first.Run(ctx, "parent", runtime.RunInput{Messages: []model.Message{model.UserMessage("go")}})
	if err != nil || out.Status != runtime.StatusSuspended {
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

// testTheParentsBudgetCapsTheChilds: a child without a budget of its own
// gets what its parent's had left; its slow tool is cut there and the
// parent reads a timeout.
func testTheParentsBudgetCapsTheChilds(t *testing.T, newEngine NewEngine) {
	slow := fixtureTool{spec: deskSpec(t, "slow"), handler: func(ctx context.Context, _ *runtime.ToolCall) (*planner.ToolResult, error) {
		select {
		case <-time.After(20 * time.Second):
		case <-ctx.Done():
		}
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}}
	e := newAgentsEnv(t, newEngine, agentsOptions{desk: []fixtureTool{slow}, parentPolicy: runtime.RunPolicy{TimeBudget: time.Second}},
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

// testAChildsToolCallsKnowTheirParent: a tool the child calls gets the
// parent's run and call ids in its call metadata.
func testAChildsToolCallsKnowTheirParent(t *testing.T, newEngine NewEngine) {
	var seen guarded[tools.CallMeta]
	look := fixtureTool{spec: deskSpec(t, "look"), handler: func(_ context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
		seen.set(call.Meta)
		return &planner.ToolResult{Result: []byte(`{"ok":true}`)}, nil
	}}
	e := newAgentsEnv(t, newEngine, agentsOptions{desk: []fixtureTool{look}},
		[]scripted.Step{scripted.Call("ask", `{"question":"x"}`), scripted.Reply("ok")},
		[]scripted.Step{scripted.Call("look", `{}`), scripted.Reply("seen")},
	)
	out := e.run("ask")
	meta := seen.get()
	if meta.ParentRunID != out.RunID || meta.ParentToolCallID != "call_1" || meta.RunID != out.RunID+"/call_1" {
		t.Fatalf("the child's tool call meta = %+v (parent run %s)", meta, out.RunID)
	}
}

// testAClarificationAndADenialInsideTheChild: the child's missing field
// suspends the parent with a clarification the answer completes; a denied
// call gets its denied result inside the child, which answers.
func testAClarificationAndADenialInsideTheChild(t *testing.T, newEngine NewEngine) {
	note := fixtureTool{spec: deskSpec(t, "note", withPayload(t, `{"type":"object","properties":{"q":{"type":"string"},"who":{"type":"string"}},"required":["q","who"]}`))}
	gated := fixtureTool{spec: deskSpec(t, "refund", func(s *tools.ToolSpec) {
		s.Confirmation = &tools.ConfirmationSpec{Title: "Refund", PromptTemplate: "Refund {{ .q }}?"}
	})}
	e := newAgentsEnv(t, newEngine, agentsOptions{desk: []fixtureTool{note, gated}, childPolicy: runtime.RunPolicy{InterruptsAllowed: true, OnMissingFields: runtime.MissingFieldsAwaitClarification}},
		[]scripted.Step{scripted.Call("ask", `{"question":"note and refund"}`), scripted.Reply("done")},
		[]scripted.Step{scripted.Call("note", `{"q":"x"}`), scripted.Call("refund", `{"q":"7"}`), scripted.Reply("noted; refund refused")},
	)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	out := e.run("go")
	if out.Status != runtime.StatusSuspended || out.Suspension.Pending[0].Kind != runtime.PendingClarification {
		t.Fatalf("first = %+v, want the child's clarification", out)
	}
	h, err := e.rt.Continue(ctx, out.RunID, runtime.PendingInputResponse{Clarification: &runtime.ClarificationAnswer{Fields: []byte(`{"who":"ann"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	next, err := h.Wait(ctx)
	if err != nil || next.Status != runtime.StatusSuspended || next.Suspension.Pending[0].Tool != "desk.refund" {
		t.Fatalf("after the clarification = %+v, %v; want the refund's confirmation", next, err)
	}
	h, err = e.rt.Continue(ctx, out.RunID, next.Suspension.Pending[0].Deny())
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.Wait(ctx)
	if err != nil || done.Status != runtime.StatusCompleted {
		t.Fatalf("after the denial = %+v, %v", done, err)
	}
	if got, _ := toolResult(t, done, "call_1"); got != `{"summary":"noted; refund refused"}` {
		t.Fatalf("the call's result = %s", got)
	}
	if e.ran("desk.note") != 1 || e.ran("desk.refund") != 0 {
		t.Fatalf("note ran %d times (want 1), refund %d (want 0)", e.ran("desk.note"), e.ran("desk.refund"))
	}
}
