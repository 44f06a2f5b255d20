package ordersdesk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// Agent is the agent's name.
const Agent = "desk"

// Answer is what Script answers once the call ran.
const Answer = "Order A-1 is cancelled."

// Prompt is the confirmation prompt of cancelling order A-1.
const Prompt = "Cancel order A-1?"

// New returns a runtime on store whose model is client, running the agent
// over orders.cancelOrder, which exec runs once approved; opts add to the
// runtime's options.
func New(store runtime.Store, client model.Client, exec toolcall.Executor, opts ...runtime.Option) (*runtime.Runtime, error) {
	rt, err := runtime.New(append([]runtime.Option{runtime.WithStore(store), runtime.WithModel(model.ModelClassDefault, client)}, opts...)...)
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
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: exec}); err != nil {
		return nil, err
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: Agent, Uses: []runtime.ToolsetUse{{Toolset: "orders"}}}); err != nil {
		return nil, err
	}
	return rt, nil
}

// Script is the model of one run: the call, then the answer. A scripted
// client remembers nothing across processes, so each request plays the
// step its transcript has reached (one per assistant message so far): a
// process continuing the run gets the answer only if the checkpoint
// restored the transcript.
func Script() *scripted.Client {
	steps := []scripted.Step{
		scripted.Call("cancelOrder", `{"order_id":"A-1"}`),
		scripted.Reply(Answer),
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

// LoggingExecutor cancels the order and appends one line to logPath,
// synced before it answers, so a test counts how many times the call ran
// in any process.
func LoggingExecutor(logPath string) toolcall.Executor {
	return toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		if err := appendLine(logPath, fmt.Sprintf("cancelled %s (process %d)", p.OrderID, os.Getpid())); err != nil {
			return nil, err
		}
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
}

// HangingExecutor appends one line to logPath, synced, naming the call,
// then blocks until ctx ends: a call that is started and never finishes,
// for the tests that kill its process.
func HangingExecutor(logPath string) toolcall.Executor {
	return toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		if err := appendLine(logPath, fmt.Sprintf("started %s (process %d)", call.Meta.ToolCallID, os.Getpid())); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
}

// appendLine appends line to path and syncs it before returning, so that
// a process killed right after still left it on disk.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
