package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/catalogfile"
	"github.com/quiver-go/quiver/tools/contract"
)

// deferred are the tools a user names when they want them (seed 004: keep
// a tool discoverable only when the user's sentence names it).
var deferred = []string{"startExport", "getExportStatus", "cancelExport", "getIndexStats", "getColumnStats", "explainQuery"}

// script is the offline model: a guess, a search, the call, the answer.
func script() *scripted.Client {
	return scripted.New(
		scripted.Call("startExport", `{"table":"orders","format":"csv"}`),
		scripted.Call("search_tools", `{"query":"export a table to csv"}`),
		scripted.Call("startExport", `{"table":"orders","format":"csv"}`),
		scripted.Reply("The export of orders to CSV has started (export exp-1)."),
	)
}

// run registers the shipped workspace catalog as a toolset, runs one turn
// and prints its transcript to w.
func run(ctx context.Context, w io.Writer) error {
	model := script()
	rt, err := runtime.New(runtime.WithModel("", portable.Wrap(model)))
	if err != nil {
		return err
	}
	specs, err := workspaceSpecs()
	if err != nil {
		return err
	}
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "workspace", Specs: specs, Executor: toolcall.ExecutorFunc(execute)}); err != nil {
		return err
	}
	err = rt.RegisterAgent(runtime.AgentRegistration{
		Name:         "workspace-assistant",
		SystemPrompt: "You help people work with their tables.",
		Planner:      planner.NewStandard(),
		Uses:         []runtime.ToolsetUse{{Toolset: "workspace", Deferred: deferred}},
		Search:       modelSearch(),
	})
	if err != nil {
		return err
	}
	out, err := rt.Run(ctx, "workspace-assistant", runtime.RunInput{Messages: userSays("Export the orders table to CSV.")}, runtime.WithRunID("discovery-1"))
	if err != nil {
		return err
	}
	first := model.Requests()[0]
	fmt.Fprintf(w, "first request: %d tools advertised (%d deferred tools held back), search tool %q\n\n", len(first.Tools), len(deferred), lastTool(first))
	printTranscript(w, out.Messages)
	fmt.Fprintf(w, "\nrun ended: %s after %d budgeted tool call(s)\n", out.Reason, out.ToolCalls)
	return nil
}

// workspaceSpecs compiles the shipped catalog file into tool specs. The
// file names its tools by ident ("workspace.startExport"); a declaration
// takes the tool's local name.
func workspaceSpecs() ([]tools.ToolSpec, error) {
	cat, err := catalogfile.Read(bytesReader(catalogs.Workspace()), "workspace.json")
	if err != nil {
		return nil, err
	}
	ts := contract.ToolsetDeclaration{Name: "workspace", Description: "A data workspace."}
	for _, t := range cat.Tools {
		ts.Tools = append(ts.Tools, contract.ToolDeclaration{
			Toolset: "workspace", Name: tools.Ident(t.Name).Tool(), Title: t.Title, Description: t.Description,
			Keywords: t.Keywords, Tags: t.Tags, InputSchema: t.InputSchema,
		})
	}
	return contract.CompileToolset(ts)
}

// execute answers every workspace call; only the export matters here.
func execute(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	if call.Ident.Tool() == "startExport" {
		return &toolcall.Result{Result: json.RawMessage(`{"exportId":"exp-1","status":"running"}`)}, nil
	}
	return nil, fmt.Errorf("the example does not implement %s", call.Ident)
}

func lastTool(req model.Request) string {
	if len(req.Tools) == 0 {
		return ""
	}
	names := make([]string, len(req.Tools))
	for i, d := range req.Tools {
		names[i] = d.Name
	}
	if slices.Contains(names, "search_tools") {
		return "search_tools"
	}
	return ""
}
