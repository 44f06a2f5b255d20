package temporal_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// orders is the executor of the tests' "orders" toolset: it records each
// execution by tool call id (the idempotency key) and can be made to
// block.
type orders struct {
	mu    sync.Mutex
	calls []string
	// block, when set, is called before a getOrder answers.
	block func(ctx context.Context, attempt int) error
}

func (o *orders) executed() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.calls...)
}

func (o *orders) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	var p struct {
		OrderID string `json:"order_id"`
	}
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.calls = append(o.calls, call.Meta.ToolCallID)
	n := len(o.calls)
	o.mu.Unlock()
	if o.block != nil && call.Ident == "orders.getOrder" {
		if err := o.block(ctx, n); err != nil {
			return nil, err
		}
	}
	if call.Ident == "orders.cancelOrder" {
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	}
	return &toolcall.Result{Result: json.RawMessage(`{"order_id":"` + p.OrderID + `","status":"shipped <= 2 days"}`)}, nil
}

// newDesk returns a runtime on e, on store, with the "orders" toolset
// served by exec and the agent "desk" under policy, its model playing
// steps.
func newDesk(t testing.TB, e engine.Engine, store *runtime.MemoryStore, exec *orders, policy runtime.RunPolicy, steps ...scripted.Step) *runtime.Runtime {
	t.Helper()
	return newDeskWith(t, e, store, exec, policy, scripted.New(steps...))
}

// newDeskOn is newDesk on model m, memory stores and no policy.
func newDeskOn(t testing.TB, e engine.Engine, m model.Client) *runtime.Runtime {
	t.Helper()
	return newDeskWith(t, e, runtime.NewMemoryStore(), &orders{}, runtime.RunPolicy{}, m)
}

// newDeskWith is newDesk on model m.
func newDeskWith(t testing.TB, e engine.Engine, store *runtime.MemoryStore, exec *orders, policy runtime.RunPolicy, m model.Client) *runtime.Runtime {
	t.Helper()
	rt, err := runtime.New(runtime.WithEngine(e), runtime.WithStore(store), runtime.WithModel(model.ModelClassDefault, m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{
		Name: "orders",
		Tools: []contract.ToolDeclaration{{
			Name:        "getOrder",
			Title:       "Get order",
			Description: "Look up an order by id.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`),
		}, {
			Name:         "cancelOrder",
			Title:        "Cancel order",
			Description:  "Cancel an open order.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`),
			Confirmation: &tools.ConfirmationSpec{PromptTemplate: "Cancel order {{ .order_id }}?"},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: specs, Executor: exec}); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "desk", Planner: planner.NewStandard(), Policy: policy,
		Uses: []runtime.ToolsetUse{{Toolset: "orders"}}}); err != nil {
		t.Fatal(err)
	}
	return rt
}

// ask is the user message of the tests' runs.
func ask(text string) runtime.RunInput {
	return runtime.RunInput{Messages: []model.Message{model.UserMessage(text)}}
}

// toolResults returns the contents of the tool results in msgs.
func toolResults(msgs []model.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				out = append(out, string(p.ToolResult.Content))
			}
		}
	}
	return out
}

// eventTypes reads the run's events from the log and checks they are
// numbered 1, 2, … with no gap or repeat.
func eventTypes(t testing.TB, log runtime.RunLog, runID string) []string {
	t.Helper()
	recs, err := log.Read(context.Background(), runID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("run %s: event %d has sequence number %d", runID, i+1, r.Seq)
		}
		out = append(out, string(r.Type))
	}
	return out
}
