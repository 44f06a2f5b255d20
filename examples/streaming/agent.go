package main

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

const (
	// agentName is the one agent of the example.
	agentName = "stock-desk"
	// runID names the run, so that the client knows the URL to follow
	// before the run starts.
	runID = "run-1"
	// question is what the user asks.
	question = "How many KB-42 keyboards do we have at the north site?"
)

// warehouse is the toolset: one tool, which takes a while and says how far
// it is.
var warehouse = contract.ToolsetDeclaration{
	Name:        "warehouse",
	Description: "Warehouse tools.",
	Tools: []contract.ToolDeclaration{{
		Name:         "count_stock",
		Title:        "Count stock",
		Description:  "Count the units of a SKU on hand at a site, aisle by aisle.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"},"site":{"type":"string","description":"The warehouse site, e.g. north."}},"required":["sku","site"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"},"site":{"type":"string"},"on_hand":{"type":"integer"}},"required":["sku","site","on_hand"]}`),
	}},
}

// aisles are what count_stock walks through, with the units it finds in
// each (the same for every SKU and site: the example has one warehouse).
var aisles = []struct {
	name  string
	units int
}{{"aisle A", 9}, {"aisle B", 0}, {"aisle C", 8}}

// script is the offline model in streaming mode: like a provider it sends
// its text word by word and each call's arguments in pieces before the
// call. It says what it does and calls count_stock, then answers.
func script() *scripted.Client {
	return scripted.New(
		scripted.Assistant("Let me count them.", scripted.ToolCallSpec{Name: "count_stock", Payload: `{"sku":"KB-42","site":"north"}`}),
		scripted.Reply("We have 17 KB-42 keyboards on hand at the north site."),
	).WithStreaming()
}

// newRuntime returns a runtime on the in-memory engine with the warehouse
// toolset and the agent registered.
func newRuntime() (*runtime.Runtime, error) {
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, script()))
	if err != nil {
		return nil, err
	}
	specs, err := contract.CompileToolset(warehouse)
	if err != nil {
		return nil, err
	}
	err = rt.RegisterToolset(runtime.ToolsetRegistration{Name: warehouse.Name, Specs: specs, Executor: runtime.ToolExecutorFunc(countStock)})
	if err != nil {
		return nil, err
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name:         agentName,
		SystemPrompt: "You answer questions about the warehouse's stock.",
		Planner:      planner.NewStandard(),
		Uses:         []runtime.ToolsetUse{{Toolset: warehouse.Name}},
	})
	if err != nil {
		return nil, err
	}
	return rt, nil
}

// countStock is the toolset's executor. It counts aisle by aisle and
// reports its progress after each one: the run records each report as a
// tool_progress event, which followers see while the call runs.
func countStock(ctx context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
	if call.Ident.Tool() != "count_stock" {
		return nil, fmt.Errorf("unknown tool %s", call.Ident)
	}
	var in struct {
		SKU  string `json:"sku"`
		Site string `json:"site"`
	}
	if err := call.Decode(&in); err != nil {
		return nil, err
	}
	total := 0
	for i, a := range aisles {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		total += a.units
		tools.ReportProgress(ctx, tools.Progress{
			Progress: float64(i + 1),
			Total:    float64(len(aisles)),
			Message:  fmt.Sprintf("%s counted: %d", a.name, a.units),
		})
	}
	out, err := json.Marshal(map[string]any{"sku": in.SKU, "site": in.Site, "on_hand": total})
	if err != nil {
		return nil, err
	}
	return &planner.ToolResult{Result: out}, nil
}

// userInput is the run's input: the user's question.
func userInput() runtime.RunInput {
	return runtime.RunInput{Messages: []model.Message{model.UserMessage(question)}}
}
