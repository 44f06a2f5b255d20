package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/quiver-go/quiver/examples/records/gen/agents/workspace/assistant"
	"github.com/quiver-go/quiver/examples/records/gen/toolsets/workspace"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
)

// script is the offline model's side of the conversation.
func script() *scripted.Client {
	return scripted.New(
		scripted.Call("countRows", `{"table":"sales.orders","filter":"status = 'late'"}`),
		scripted.Call("search_tools", `{"query":"export a table to csv"}`),
		scripted.Call("startExport", `{"table":"sales.orders","format":"csv"}`),
		scripted.Reply("12 orders are late. The CSV export of sales.orders is running (export exp-7)."),
	)
}

// newAssistant builds a runtime with the scripted model behind portable
// search, registers the generated agent with this program's executor, and
// prints events to w.
func newAssistant(w io.Writer) (*assistant.Client, error) {
	rt, err := runtime.New(runtime.WithModel(model.ModelClassDefault, portable.Wrap(script())))
	if err != nil {
		return nil, err
	}
	err = assistant.RegisterAssistantAgent(context.Background(), rt, assistant.AssistantAgentConfig{
		Planner:   planner.NewStandard(),
		Search:    model.SearchSettings{Mode: model.SearchPortable},
		Executors: map[string]toolcall.Executor{assistant.ToolsetWorkspace: toolcall.ExecutorFunc(execute)},
	})
	if err != nil {
		return nil, err
	}
	rt.Subscribe(func(e runtime.Event) { printEvent(w, e) })
	return assistant.NewClient(rt), nil
}

// execute answers the two tools the conversation uses, through the
// generated typed payloads (Decode validates and injects).
func execute(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	switch call.Ident {
	case workspace.CountRows:
		p, err := workspace.DecodeCountRows(call.Payload, call.Meta, call.Labels)
		if err != nil {
			return nil, err
		}
		return result(workspace.CountRowsResult{Count: lateOrders(p.Table)})
	case workspace.StartExport:
		if _, err := workspace.DecodeStartExport(call.Payload, call.Meta, call.Labels); err != nil {
			return nil, err
		}
		return result(workspace.StartExportResult{ExportID: "exp-7", Status: "running"})
	}
	return nil, fmt.Errorf("the example does not implement %s", call.Ident)
}

func lateOrders(table string) int64 {
	if table == "sales.orders" {
		return 12
	}
	return 0
}

func result(v any) (*toolcall.Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &toolcall.Result{Result: b}, nil
}

func userInput(text string) runtime.RunInput {
	return runtime.RunInput{Messages: []model.Message{model.UserMessage(text)}}
}

func withRunID(id string) runtime.RunOption { return runtime.WithRunID(id) }

// discovered lists the deferred tools a run's searches made callable, from
// the discovery records in its messages.
func discovered(out *runtime.RunOutput) string {
	var names []string
	for _, id := range model.DiscoveredTools(out.Messages) {
		names = append(names, string(id))
	}
	return strings.Join(names, ", ")
}
