package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// An agent runs on the in-memory engine with a scripted model: the model
// calls a tool of a toolset the program declares, the executor answers,
// and the model reads the result and replies.
func ExampleNew() {
	ctx := context.Background()
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, scripted.New(
		scripted.Call("getOrder", `{"order_id":"A-1"}`),
		scripted.Reply("Order A-1 has shipped."),
	)))
	if err != nil {
		panic(err)
	}

	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{
		Name: "orders",
		Tools: []contract.ToolDeclaration{{
			Name:        "getOrder",
			Title:       "Get order",
			Description: "Look up an order by id.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`),
		}},
	})
	if err != nil {
		panic(err)
	}
	// One executor serves the toolset here, behind an MCP server
	// (mcp.Toolsets) and behind a registry (registry.Serve).
	executor := toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		return &toolcall.Result{Result: json.RawMessage(`{"order_id":"` + p.OrderID + `","status":"shipped"}`)}, nil
	})
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: executor}); err != nil {
		panic(err)
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name: "desk", Planner: planner.NewStandard(),
		Uses: []runtime.ToolsetUse{{Toolset: "orders"}},
	})
	if err != nil {
		panic(err)
	}

	out, err := rt.Run(ctx, "desk", runtime.RunInput{Messages: []model.Message{model.UserMessage("Where is order A-1?")}})
	if err != nil {
		panic(err)
	}
	for _, m := range out.Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				fmt.Printf("tool result: %s → %s\n", p.ToolResult.Name, p.ToolResult.Content)
			}
		}
	}
	fmt.Println("assistant:", out.Final.Text)
	fmt.Println("status:", out.Status, out.Reason)
	// Output:
	// tool result: getOrder → {"order_id":"A-1","status":"shipped"}
	// assistant: Order A-1 has shipped.
	// status: completed final_response
}

// A call behind a confirmation suspends the run: nothing waits in memory.
// The operator's approval, bound to that call and the payload its prompt
// showed, resumes it in a continuation.
func ExampleRuntime_Continue() {
	ctx := context.Background()
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, scripted.New(
		scripted.Call("cancelOrder", `{"ORDER_ID":"VIP-9","order_id":"A-1"}`),
		scripted.Call("cancelOrder", `{"order_id":"A-1"}`),
		scripted.Reply("Order A-1 is cancelled."),
	)))
	if err != nil {
		panic(err)
	}

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
	executor := toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		fmt.Println("executor: cancelled", p.OrderID)
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: executor}); err != nil {
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
	fmt.Println("status:", out.Status)
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
	// status: suspended
	// operator sees: Cancel order A-1?
	// executor: cancelled A-1
	// assistant: Order A-1 is cancelled.
}
