package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "raceprog:", err)
		os.Exit(1)
	}
}

// script is the model's whole script: the start process plays the Call,
// the continuing process the Reply (each process has its own model).
var script = []scripted.Step{
	scripted.Call("cancelOrder", `{"order_id":"A-1"}`),
	scripted.Reply("Order A-1 is cancelled."),
}

func run() error {
	redisURL := flag.String("redis", "", "URL of the Redis server, redis://host:port/db")
	prefix := flag.String("prefix", redisstore.DefaultPrefix, "key prefix of the store")
	logPath := flag.String("log", "", "file the executor appends a line to for every order it cancels")
	barrier := flag.Bool("barrier", false, `continue: print "ready" once the run is listed, then wait for a line on standard input`)
	flag.Parse()
	if *redisURL == "" || *logPath == "" {
		return errors.New("-redis and -log are required")
	}
	ctx := context.Background()
	store, err := redisstore.Open(ctx, *redisURL, redisstore.WithPrefix(*prefix))
	if err != nil {
		return err
	}
	defer store.Close()

	switch args := flag.Args(); {
	case len(args) == 1 && args[0] == "start":
		rt, err := newRuntime(store, script, *logPath)
		if err != nil {
			return err
		}
		defer rt.Close()
		out, err := rt.Run(ctx, "desk", runtime.RunInput{Messages: []model.Message{model.UserMessage("Cancel A-1.")}})
		if err != nil {
			return err
		}
		if out.Status != runtime.StatusSuspended {
			return fmt.Errorf("run %s ended %s, want suspended", out.RunID, out.Status)
		}
		fmt.Println(out.RunID)
		return nil
	case len(args) == 2 && args[0] == "continue":
		rt, err := newRuntime(store, script[1:], *logPath)
		if err != nil {
			return err
		}
		defer rt.Close()
		return continueRun(ctx, rt, args[1], *barrier)
	}
	return errors.New(`usage: raceprog -redis URL -prefix P -log FILE start | [-barrier] continue RUNID`)
}

// continueRun lists the suspended runs and continues runID with its first
// pending item's approval.
func continueRun(ctx context.Context, rt *runtime.Runtime, runID string, barrier bool) error {
	suspended, err := rt.ListSuspended(ctx, runtime.SuspendedFilter{Agent: "desk"})
	if err != nil {
		return err
	}
	var item *runtime.PendingItem
	for _, c := range suspended {
		if c.RunID == runID && len(c.Pending) > 0 {
			item = &c.Pending[0]
		}
	}
	if barrier {
		fmt.Println("ready")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return fmt.Errorf("-barrier: waiting for a line on standard input: %w", err)
		}
	}
	if item == nil {
		fmt.Println("not suspended")
		return nil
	}
	h, err := rt.Continue(ctx, runID, item.Approve())
	if errors.Is(err, runtime.ErrNotSuspended) {
		fmt.Println("not suspended")
		return nil
	}
	if err != nil {
		return err
	}
	out, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	if out.Final == nil {
		return fmt.Errorf("run %s ended %s without a final answer", runID, out.Status)
	}
	fmt.Println("completed:", out.Final.Text)
	return nil
}

// newRuntime is the runtime of either mode: the agent desk on the orders
// toolset, whose cancelOrder needs a confirmation and whose executor
// appends "cancelled <order>" to logPath.
func newRuntime(store *redisstore.Store, steps []scripted.Step, logPath string) (*runtime.Runtime, error) {
	rt, err := runtime.New(runtime.WithStore(store), runtime.WithModel(model.ModelClassDefault, scripted.New(steps...)))
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
	executor := toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			OrderID string `json:"order_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		if err := appendLine(logPath, "cancelled "+p.OrderID); err != nil {
			return nil, err
		}
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: executor}); err != nil {
		return nil, err
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{
		Name: "desk", Planner: planner.NewStandard(),
		Uses: []runtime.ToolsetUse{{Toolset: "orders"}},
	}); err != nil {
		return nil, err
	}
	return rt, nil
}

// appendLine appends line to the file at path, synced before it returns.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, line); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
