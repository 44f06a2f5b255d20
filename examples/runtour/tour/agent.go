package tour

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// AgentName is the tour's agent.
const AgentName = "orders-assistant"

// declarations are the toolset's tools, compiled at start-up like any
// runtime-declared toolset.
var declarations = contract.ToolsetDeclaration{
	Name:        "orders",
	Description: "Order desk tools.",
	Tools: []contract.ToolDeclaration{
		{
			Toolset:      "orders",
			Name:         "list_orders",
			Title:        "List orders",
			Description:  "List orders by status, oldest first, a page at a time.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"status":{"type":"string","enum":["open","shipped"]},"cursor":{"type":"string","description":"Cursor of the next page."}},"required":["status"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"orders":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"placed":{"type":"string"}}}}},"required":["orders"]}`),
			Bounds:       &tools.BoundsSpec{Cursor: "cursor", NextCursor: "next_cursor"},
		},
		{
			Toolset:      "orders",
			Name:         "cancel_order",
			Title:        "Cancel an order",
			Description:  "Cancel an open order. The customer is refunded.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"},"reason":{"type":"string"}},"required":["order_id"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"cancelled":{"type":"boolean"}},"required":["cancelled"]}`),
			Confirmation: &tools.ConfirmationSpec{
				Title:                "Confirm cancellation",
				PromptTemplate:       `Cancel order {{ .order_id }}{{ with index . "reason" }} ({{ . }}){{ end }}?`,
				DeniedResultTemplate: `{"cancelled":false,"order_id":{{ json .order_id }}}`,
			},
		},
	},
}

// steps are what the offline model answers, turn by turn.
var steps = []scripted.Step{
	scripted.Call("list_orders", `{"status":"open"}`),
	scripted.Call("cancel_order", `{"order_id":"A-1001","reason":"oldest open order"}`),
	scripted.Reply("Three orders are open (A-1001, A-1002, A-1003); I cancelled A-1001, the oldest."),
}

// script is the offline model. Like a real one it answers from the
// conversation it is sent, not from memory: each request plays the step
// its transcript has reached (one per assistant turn so far). So a run
// continued by another process (--data) gets the answer that follows the
// conversation its checkpoint kept.
func script() *scripted.Client {
	turn := scripted.Choose(func(req *model.Request) scripted.Step {
		n := 0
		for _, m := range req.Messages {
			if m.Role == model.RoleAssistant {
				n++
			}
		}
		if n >= len(steps) {
			return scripted.Fail(fmt.Errorf("the conversation has %d assistant turns; the script has %d", n, len(steps)))
		}
		return steps[n]
	})
	return scripted.New(slices.Repeat([]scripted.Step{turn}, len(steps))...)
}

// NewRuntime returns a runtime on the offline model with the toolset and
// the agent registered, printing the runs' events to w, and the function
// that stops printing; opts are more runtime options (a store, an engine).
func NewRuntime(w io.Writer, opts ...runtime.Option) (*runtime.Runtime, func(), error) {
	rt, err := runtime.New(append([]runtime.Option{runtime.WithModel(model.ModelClassDefault, script())}, opts...)...)
	if err != nil {
		return nil, nil, err
	}
	specs, err := contract.CompileToolset(declarations)
	if err != nil {
		return nil, nil, err
	}
	err = rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: runtime.ToolExecutorFunc(execute)})
	if err != nil {
		return nil, nil, err
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name:         AgentName,
		SystemPrompt: "You run the order desk.",
		Planner:      planner.NewStandard(),
		Uses:         []runtime.ToolsetUse{{Toolset: "orders"}},
		Policy:       runtime.RunPolicy{MaxToolCalls: 5},
	})
	if err != nil {
		return nil, nil, err
	}
	return rt, rt.Subscribe(func(e runtime.Event) { printEvent(w, e) }), nil
}

// execute is the toolset's executor.
func execute(_ context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
	switch call.Ident.Tool() {
	case "list_orders":
		total := 3
		return &planner.ToolResult{
			Result: json.RawMessage(`{"orders":[{"id":"A-1001","placed":"2026-11-02"},{"id":"A-1002","placed":"2026-11-09"}]}`),
			Bounds: &planner.Bounds{Returned: 2, Total: &total, Truncated: true, NextCursor: "page-2"},
		}, nil
	case "cancel_order":
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		return &planner.ToolResult{Result: json.RawMessage(`{"cancelled":true}`), DisplayHint: "Cancelled " + p.OrderID}, nil
	}
	return nil, fmt.Errorf("unknown tool %s", call.Ident)
}

// UserInput is a run's input of one user message.
func UserInput(text string) runtime.RunInput {
	return runtime.RunInput{Messages: []model.Message{model.UserMessage(text)}}
}
