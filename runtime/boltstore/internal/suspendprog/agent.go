package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// agentName is the agent the program runs.
const agentName = "desk"

// finalAnswer is the scripted model's answer once the call ran.
const finalAnswer = "Order A-1 is cancelled."

// newRuntime returns a runtime on store with the orders toolset, whose
// cancelOrder needs a confirmation and appends a line to logPath when it
// runs.
func newRuntime(store runtime.Store, logPath string) (*runtime.Runtime, error) {
	rt, err := runtime.New(runtime.WithStore(store), runtime.WithModel(model.ModelClassDefault, script()))
	if err != nil {
		return nil, err
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
		return nil, err
	}
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: executor(logPath)}); err != nil {
		return nil, err
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name: agentName, Planner: planner.NewStandard(),
		Uses: []runtime.ToolsetUse{{Toolset: "orders"}},
	})
	if err != nil {
		return nil, err
	}
	return rt, nil
}

// script is the model: the call, then the answer. A scripted client
// remembers nothing across processes, so each request plays the step its
// transcript has reached (one per assistant message so far) — the process
// continuing the run gets the answer only if the checkpoint restored the
// transcript.
func script() *scripted.Client {
	steps := []scripted.Step{
		scripted.Call("cancelOrder", `{"order_id":"A-1"}`),
		scripted.Reply(finalAnswer),
	}
	turn := scripted.Choose(func(req *model.Request) scripted.Step {
		n := 0
		for _, m := range req.Messages {
			if m.Role == model.RoleAssistant {
				n++
			}
		}
		if n >= len(steps) {
			return scripted.Fail(fmt.Errorf("the transcript has %d assistant messages; the script has %d steps", n, len(steps)))
		}
		return steps[n]
	})
	return scripted.New(turn, turn)
}

// executor cancels the order: it appends one line to logPath, synced, so
// the test counts how many times the call ran.
func executor(logPath string) toolcall.Executor {
	return toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		_, err = fmt.Fprintf(f, "cancelled %s (process %d)\n", p.OrderID, os.Getpid())
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
}
