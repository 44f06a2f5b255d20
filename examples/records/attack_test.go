package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/examples/records/gen/agents/workspace/assistant"
	"github.com/quiver-go/quiver/examples/records/gen/toolsets/workspace"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
)

// deleteViewRun runs the generated assistant on a model that finds
// deleteSavedView and calls it with payload; the executor decodes through
// the generated DecodeDeleteSavedView and records what it deleted.
func deleteViewRun(t *testing.T, payload string, limits ...runtime.OutputLimits) (*runtime.RunOutput, *[]string, *runtime.Runtime, *scripted.Client) {
	t.Helper()
	model := scripted.New(
		scripted.Call("search_tools", `{"query":"deleteSavedView"}`),
		scripted.Call("deleteSavedView", payload),
		scripted.Reply("done"),
	)
	rt, err := runtime.New(runtime.WithModel("default", portable.Wrap(model)))
	if err != nil {
		t.Fatal(err)
	}
	var deleted []string
	exec := runtime.ToolExecutorFunc(func(_ context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
		if call.Ident != workspace.DeleteSavedView {
			return nil, fmt.Errorf("unexpected %s", call.Ident)
		}
		p, err := workspace.DecodeDeleteSavedView(call.Payload, call.Meta, call.Labels)
		if err != nil {
			return nil, err
		}
		deleted = append(deleted, p.View)
		return &planner.ToolResult{Result: json.RawMessage(`{"deleted":true}`)}, nil
	})
	cfg := assistant.AssistantAgentConfig{
		Planner:   planner.NewStandard(),
		Search:    searchPortable(),
		Executors: map[string]runtime.ToolExecutor{assistant.ToolsetWorkspace: exec},
	}
	if len(limits) > 0 {
		cfg.ModelOutput = limits[0]
	}
	err = assistant.RegisterAssistantAgent(context.Background(), rt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := rt.Run(context.Background(), assistant.Name, userInput("delete my scratch view"))
	if err != nil {
		t.Fatal(err)
	}
	return out, &deleted, rt, model
}

// TestGeneratedToolRefusesHiddenVariants: the prompt said "scratch"; a
// second spelling of the key must not make the executor delete another
// view. Each variant is refused before the operator is asked.
func TestGeneratedToolRefusesHiddenVariants(t *testing.T) {
	for _, payload := range []string{
		`{"view":"scratch","VIEW":"quarterly-board-report"}`,
		`{"view":"scratch","View":"quarterly-board-report"}`,
		`{"view":"scratch","view":"quarterly-board-report"}`,
	} {
		out, deleted, _, m := deleteViewRun(t, payload)
		if out.Suspension != nil || len(*deleted) != 0 {
			t.Fatalf("%s: suspension %+v, deleted %v", payload, out.Suspension, *deleted)
		}
		reqs := m.Requests()
		last := reqs[len(reqs)-1].Messages
		res := last[len(last)-1].Parts[0].ToolResult
		if res == nil || !res.IsError || !strings.Contains(string(res.Content), "invalid_payload") {
			t.Fatalf("%s: the model read %+v", payload, res)
		}
	}
}

// TestGeneratedToolRunsWhatTheOperatorApproved: the approval is bound to
// the call and its payload, and the executor deletes the view the prompt
// named.
func TestGeneratedToolRunsWhatTheOperatorApproved(t *testing.T) {
	out, deleted, rt, _ := deleteViewRun(t, `{"view":"scratch"}`)
	item := out.Suspension.Pending[0]
	if !strings.Contains(item.Prompt, "Delete saved view scratch permanently?") {
		t.Fatalf("prompt %q", item.Prompt)
	}
	h, err := rt.Continue(context.Background(), out.RunID, item.Approve())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(*deleted) != "[scratch]" {
		t.Fatalf("deleted %v", *deleted)
	}
}

// TestGeneratedAgentTakesOutputLimits: the generated config carries the
// agent's model-output limits to the runtime.
func TestGeneratedAgentTakesOutputLimits(t *testing.T) {
	out, deleted, _, m := deleteViewRun(t, `{"view":"scratch"}`, runtime.OutputLimits{MaxArgumentBytes: 10})
	if out.Suspension != nil || len(*deleted) != 0 {
		t.Fatalf("an 18-byte payload passed a 10-byte limit: %+v", out)
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	if res := last[len(last)-1].Parts[0].ToolResult; res == nil || !strings.Contains(string(res.Content), "the limit is 10 bytes") {
		t.Fatalf("the model read %+v", res)
	}
}

func searchPortable() model.SearchSettings { return model.SearchSettings{Mode: model.SearchPortable} }
