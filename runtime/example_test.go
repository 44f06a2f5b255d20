package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// orders compiles a toolset of one confirmation-gated tool.
func orders() []tools.ToolSpec {
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{
		Name: "orders",
		Tools: []contract.ToolDeclaration{{
			Name:         "cancelOrder",
			Title:        "Cancel order",
			Description:  "Cancel an open order.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`),
			Confirmation: &tools.ConfirmationSpec{PromptTemplate: "Cancel order {{ .order_id }}?"},
		}},
	})
	if err != nil {
		panic(err)
	}
	return specs
}

// An agent runs on the in-memory engine with a scripted model. The call
// behind a confirmation suspends the run; the operator's approval, bound
// to that call and the payload its prompt showed, resumes it.
func ExampleNew() {
	ctx := context.Background()
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, scripted.New(
		scripted.Call("cancelOrder", `{"ORDER_ID":"VIP-9","order_id":"A-1"}`),
		scripted.Call("cancelOrder", `{"order_id":"A-1"}`),
		scripted.Reply("Order A-1 is cancelled."),
	)))
	if err != nil {
		panic(err)
	}
	cancel := runtime.ToolExecutorFunc(func(_ context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		fmt.Println("executor: cancelled", p.OrderID)
		return &planner.ToolResult{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: orders(), Executor: cancel}); err != nil {
		panic(err)
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name: "desk", Planner: planner.NewStandard(),
		Uses: []runtime.ToolsetUse{{Toolset: "orders"}},
	})
	if err != nil {
		panic(err)
	}

	out, err := rt.Run(ctx, "desk", runtime.RunInput{Messages: []model.Message{model.UserMessage("Cancel A-1.")}})
	if err != nil {
		panic(err)
	}
	// The first call carried a second spelling of order_id: refused before
	// anyone was asked. The corrected call waits for the operator.
	item := out.Suspension.Pending[0]
	fmt.Println("operator sees:", item.Prompt)

	h, err := rt.Continue(ctx, out.RunID, item.Approve())
	if err != nil {
		panic(err)
	}
	done, err := h.Wait(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("assistant:", done.Final.Text)
	// Output:
	// operator sees: Cancel order A-1?
	// executor: cancelled A-1
	// assistant: Order A-1 is cancelled.
}
