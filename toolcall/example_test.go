package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// One executor, four calls through the pipeline the runtime and the MCP
// server run: each prints the answer the model reads. The executor fails
// a call with a kind of its own ([toolcall.Fail]) or a plain error; a
// payload the schema refuses never reaches it.
func ExampleRun() {
	ctx := context.Background()
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
	spec := specs[0]

	executor := toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		switch p.OrderID {
		case "A-1":
			return &toolcall.Result{Result: json.RawMessage(`{"order_id":"A-1","status":"shipped"}`)}, nil
		case "Z-9":
			return nil, toolcall.Fail("order_not_found", toolcall.RecoveryCorrectCall, "No order %s: ids look like A-1.", p.OrderID)
		default:
			return nil, errors.New("the order service is down")
		}
	})

	for _, arguments := range []string{`{"order_id":"A-1"}`, `{"order_id":"Z-9"}`, `{"order_id":"B-2"}`, `{}`} {
		// Admission parses the model's arguments once; the canonical
		// payload is what the pipeline, and the executor, see.
		payload, f := toolcall.Canonicalize(spec, json.RawMessage(arguments), tools.PayloadLimits{})
		if f != nil {
			fmt.Println(arguments, "→", string(f.JSON()))
			continue
		}
		call := &toolcall.Call{Ident: spec.Name, Spec: spec, Payload: payload}
		out, err := toolcall.Run(ctx, executor, call, toolcall.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Println(arguments, "→", string(out.Answer()))
	}
	// Output:
	// {"order_id":"A-1"} → {"order_id":"A-1","status":"shipped"}
	// {"order_id":"Z-9"} → {"error":"order_not_found","message":"No order Z-9: ids look like A-1.","recovery":"correct_call"}
	// {"order_id":"B-2"} → {"error":"tool_error","message":"The tool failed: the order service is down","recovery":"replan"}
	// {} → {"error":"missing_fields","message":"The call lacks required fields:\norder_id: is required","recovery":"correct_call"}
}
