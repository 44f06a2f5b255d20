package killdesk

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// Where a process told to block stops.
const (
	// BlockTool stops in the charge tool, before its effect.
	BlockTool = "tool"
	// BlockPlan stops in the second planning step of ScenarioPlan.
	BlockPlan = "plan"
	// BlockChild stops in the child run's tool.
	BlockChild = "child"
)

// Config is one process's part in a test.
type Config struct {
	// Journal is the file every execution and effect is appended to,
	// one line each: "<pid> exec <tool> <call id>" and
	// "<pid> effect <call id>"; a process that reaches its block appends
	// "<pid> blocked <where>".
	Journal string
	// Block, when set, is where this process stops and waits to be
	// killed.
	Block string

	mu sync.Mutex // serializes journal writes of this process
}

// blockAt stops the process at where when it was told to: it journals
// that it did, then waits until ctx ends (the process is killed first).
func (c *Config) blockAt(ctx context.Context, where string) error {
	if c.Block != where {
		return nil
	}
	if err := c.journal("blocked " + where); err != nil {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}

// journal appends one line for this process.
func (c *Config) journal(line string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.OpenFile(c.Journal, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d %s\n", os.Getpid(), line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Journal reads a journal: its lines split in fields.
func Journal(path string) ([][]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, strings.Fields(sc.Text()))
	}
	return out, sc.Err()
}

// effected reports whether the journal holds the effect of call id.
func (c *Config) effected(id string) (bool, error) {
	lines, err := Journal(c.Journal)
	if err != nil {
		return false, err
	}
	for _, l := range lines {
		if len(l) == 3 && l[1] == "effect" && l[2] == id {
			return true, nil
		}
	}
	return false, nil
}

// orders executes the orders toolset, journalling every execution.
type orders struct{ cfg *Config }

// Execute implements toolcall.Executor. charge is idempotent: its effect
// is keyed by the tool call id and performed once, however many attempts
// run.
func (o orders) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	id := call.Meta.ToolCallID
	if err := o.cfg.journal("exec " + string(call.Ident) + " " + id); err != nil {
		return nil, err
	}
	// A follower of the run log reads which process ran each attempt.
	tools.ReportProgress(ctx, tools.Progress{Message: fmt.Sprintf("pid %d", os.Getpid())})
	switch call.Ident {
	case "orders.charge":
		if err := o.cfg.blockAt(ctx, BlockTool); err != nil {
			return nil, err
		}
		done, err := o.cfg.effected(id)
		if err != nil {
			return nil, err
		}
		if !done {
			if err := o.cfg.journal("effect " + id); err != nil {
				return nil, err
			}
		}
		return &toolcall.Result{Result: json.RawMessage(`{"charged":true}`)}, nil
	case "orders.getOrder":
		if call.Meta.ParentToolCallID != "" {
			if err := o.cfg.blockAt(ctx, BlockChild); err != nil {
				return nil, err
			}
		}
		return &toolcall.Result{Result: json.RawMessage(`{"order_id":"A-1","status":"shipped"}`)}, nil
	}
	return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
}

// Register registers on rt the orders toolset, the clerk agent (also a
// toolset: an agent called as a tool) and the desk agent, on the model
// of this package.
func Register(rt *runtime.Runtime, cfg *Config) error {
	object := func(props string, required ...string) json.RawMessage {
		r, _ := json.Marshal(required)
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(r) + `}`)
	}
	order := object(`"order_id":{"type":"string"}`, "order_id")
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "orders", Tools: []contract.ToolDeclaration{
		{Name: "getOrder", Title: "Get order", Description: "Look up an order.", InputSchema: order},
		{Name: "charge", Title: "Charge", Description: "Charge an order.", InputSchema: order},
		{Name: "cancelOrder", Title: "Cancel order", Description: "Cancel an order.", InputSchema: order,
			Confirmation: &tools.ConfirmationSpec{PromptTemplate: "Cancel order {{ .order_id }}?"}},
	}})
	if err != nil {
		return err
	}
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: orders{cfg}}); err != nil {
		return err
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "clerk", Planner: planner.NewStandard(),
		Uses: []runtime.ToolsetUse{{Toolset: "orders"}}}); err != nil {
		return err
	}
	clerk, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "clerk", Tools: []contract.ToolDeclaration{
		{Name: "ask", Title: "Ask the clerk", Description: "Ask the clerk.", InputSchema: object(`"question":{"type":"string"}`, "question"),
			OutputSchema: object(`"answer":{"type":"string"}`, "answer")},
	}})
	if err != nil {
		return err
	}
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "clerk", Specs: clerk, Agent: "clerk"}); err != nil {
		return err
	}
	return rt.RegisterAgent(runtime.AgentRegistration{Name: "desk", Planner: planner.NewStandard(),
		Uses: []runtime.ToolsetUse{{Toolset: "orders"}, {Toolset: "clerk"}}})
}

// Model is the model every process registers.
func Model(cfg *Config) model.Client { return deskModel{cfg} }

// EngineOptions are the engine options of every process of a test: short
// heartbeat, workflow task and sticky queue timeouts so that a killed
// worker is noticed fast, and attempts tries per activity (0 keeps the
// runtime's own: one for a tool call).
func EngineOptions(heartbeat time.Duration, attempts int) temporal.Options {
	o := temporal.Options{
		ActivityDefaults:    temporal.ActivityDefaults{HeartbeatTimeout: heartbeat},
		WorkflowTaskTimeout: 2 * heartbeat,
		// A workflow cached on a dead worker waits this long for it
		// before any worker may take its next task.
		Worker: worker.Options{StickyScheduleToStartTimeout: heartbeat},
	}
	if attempts > 0 {
		o.ActivityDefaults.RetryPolicy = &sdktemporal.RetryPolicy{MaximumAttempts: int32(attempts), InitialInterval: 100 * time.Millisecond}
	}
	return o
}
