package storetest

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools/contract"
)

// nestedRuntime returns a runtime on s whose agent "front" calls the agent
// "desk" (the orders toolset, exec running it) through the agent toolset
// "desk.tools" (tool "ask"); front plays frontSteps, desk deskSteps.
func nestedRuntime(t *testing.T, s runtime.Store, exec toolcall.Executor, frontSteps, deskSteps []scripted.Step) *runtime.Runtime {
	t.Helper()
	rt, err := runtime.New(runtime.WithStore(s), runtime.WithModelID("front", scripted.New(frontSteps...)), runtime.WithModelID("desk", scripted.New(deskSteps...)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	ask, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "desk.tools", Tools: []contract.ToolDeclaration{{
		Name: "ask", Title: "Ask the desk", Description: "Ask the order desk.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: ordersToolset(t), Executor: exec}),
		rt.RegisterAgent(runtime.AgentRegistration{Name: "desk", ModelID: "desk", Uses: []runtime.ToolsetUse{{Toolset: "orders"}}}),
		rt.RegisterToolset(runtime.ToolsetRegistration{Name: "desk.tools", Specs: ask, Agent: "desk"}),
		rt.RegisterAgent(runtime.AgentRegistration{Name: "front", ModelID: "front", Uses: []runtime.ToolsetUse{{Toolset: "desk.tools"}}}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return rt
}

// childSuspensionAcross: a confirmation inside a child run suspends its
// parent; the suspension record the store keeps under the parent holds the
// child; the other runtime continues the parent, the gated call runs once
// and both runs complete.
func childSuspensionAcross(t *testing.T, a, b runtime.Store) {
	var cancels atomic.Int32
	exec := toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		if call.Ident == "orders.cancelOrder" {
			cancels.Add(1)
		}
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
	first := nestedRuntime(t, a, exec, []scripted.Step{scripted.Call("ask", `{"question":"cancel A-1"}`)}, []scripted.Step{scripted.Call("cancelOrder", `{"order_id":"A-1"}`)})
	out, err := first.Run(ctx, "front", input("cancel A-1 through the desk", "nested"))
	if err != nil || out.Status != runtime.StatusSuspended || len(out.Suspension.Pending) != 1 {
		t.Fatalf("run: %+v, %v; want suspended on the desk's confirmation", out, err)
	}
	item := out.Suspension.Pending[0]
	if item.Tool != "orders.cancelOrder" || item.Prompt != "Cancel order A-1?" {
		t.Fatalf("pending = %+v, want the child's confirmation", item)
	}
	listed, err := b.Suspensions().List(ctx, runtime.SuspendedFilter{})
	if err != nil || len(listed) != 1 || listed[0].RunID != out.RunID || listed[0].Agent != "front" {
		t.Fatalf("the store's suspensions = %+v, %v; want the parent alone", listed, err)
	}
	second := nestedRuntime(t, b, exec, []scripted.Step{scripted.Reply("The desk cancelled A-1.")}, []scripted.Step{scripted.Reply("cancelled")})
	h, err := second.Continue(ctx, out.RunID, item.Approve())
	if err != nil {
		t.Fatal(err)
	}
	done, err := h.Wait(ctx)
	if err != nil || done.Status != runtime.StatusCompleted || done.Final == nil || done.Final.Text != "The desk cancelled A-1." {
		t.Fatalf("continued: %+v, %v", done, err)
	}
	if n := cancels.Load(); n != 1 {
		t.Fatalf("cancelOrder ran %d times, want once", n)
	}
	child, err := b.RunLog().Run(ctx, out.RunID+"/call_1")
	if err != nil || child.ParentRunID != out.RunID || child.Status != runtime.StatusCompleted {
		t.Fatalf("the child's record = %+v, %v", child, err)
	}
}
