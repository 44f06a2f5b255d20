package portable_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools/contract"
)

// Portable search gives a model without native tool search the agent's
// deferred tools: the wrapper offers search_tools and answers it itself.
// Here the scripted model first calls the deferred tool it has not
// discovered (the runtime refuses it and names the recovery call), then
// searches, then calls the tool the search made callable.
func ExampleWrap() {
	ctx := context.Background()
	script := scripted.New(
		scripted.Call("refundOrder", `{"order_id":"A-1"}`),
		scripted.Call("search_tools", `{"query":"refund an order"}`),
		scripted.Call("refundOrder", `{"order_id":"A-1"}`),
		scripted.Reply("Order A-1 is refunded."),
	)
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, portable.Wrap(script)))
	if err != nil {
		panic(err)
	}

	schema := json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`)
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{
		Name: "orders",
		Tools: []contract.ToolDeclaration{
			{Name: "getOrder", Title: "Get order", Description: "Look up an order by id.", InputSchema: schema},
			{Name: "refundOrder", Title: "Refund order", Description: "Refund a paid order to the customer.", Keywords: []string{"refund", "money back"}, InputSchema: schema},
		},
	})
	if err != nil {
		panic(err)
	}
	executor := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		return &toolcall.Result{Result: json.RawMessage(`{"refunded":true}`)}, nil
	})
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: executor}); err != nil {
		panic(err)
	}
	// The agent defers refundOrder and searches with the wrapper: both the
	// wrapper and the portable mode are needed.
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name: "desk", Planner: planner.NewStandard(),
		Uses:   []runtime.ToolsetUse{{Toolset: "orders", Deferred: []string{"refundOrder"}}},
		Search: model.SearchSettings{Mode: model.SearchPortable},
	})
	if err != nil {
		panic(err)
	}

	out, err := rt.Run(ctx, "desk", runtime.RunInput{Messages: []model.Message{model.UserMessage("Refund order A-1.")}})
	if err != nil {
		panic(err)
	}
	var first []string
	for _, d := range script.Requests()[0].Tools {
		first = append(first, d.Name)
	}
	fmt.Println("first request offers:", first)
	// The transcript as the model read it.
	for _, m := range out.Messages {
		for _, p := range m.Parts {
			switch {
			case p.ToolCall != nil:
				fmt.Printf("%s: calls %s %s\n", m.Role, p.ToolCall.Name, p.ToolCall.Payload)
			case p.ToolResult != nil:
				fmt.Printf("%s: %s → %s\n", m.Role, p.ToolResult.Name, p.ToolResult.Content)
			case p.Kind == model.PartText:
				fmt.Printf("%s: %s\n", m.Role, p.Text)
			}
		}
		// The search's discovery is recorded on the message that answered
		// it, so later turns keep the tool.
		if d, ok := m.Discovery(); ok {
			fmt.Println("  discovered:", d.Tools)
		}
	}
	// The refusal and the search are not charged against MaxToolCalls.
	fmt.Println("tool calls charged:", out.ToolCalls)
	// Output:
	// first request offers: [getOrder search_tools]
	// user: Refund order A-1.
	// assistant: calls refundOrder {"order_id":"A-1"}
	// tool: refundOrder → {"error":"not_in_active_set","message":"Tool 'refundOrder' not in active set. Call search_tools(query='refundOrder') to discover it, or use one of: getOrder","recovery":"correct_call"}
	// assistant: calls search_tools {"query":"refund an order"}
	// tool: search_tools → {"query":"refund an order","tools":[{"name":"refundOrder","description":"Refund a paid order to the customer."}]}
	//   discovered: [orders.refundOrder]
	// assistant: calls refundOrder {"order_id":"A-1"}
	// tool: refundOrder → {"refunded":true}
	// assistant: Order A-1 is refunded.
	// tool calls charged: 1
}
