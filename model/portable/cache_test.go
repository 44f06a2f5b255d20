package portable

import (
	"context"
	"slices"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

func TestIgnoredCheckpointsOfEveryRoundSurviveOnceEach(t *testing.T) {
	// The inner client ignores after_tools in the search round, both in the
	// round that calls the business tool.
	inner := scripted.New(
		scripted.Func(func(*model.Request) (*model.Response, error) {
			resp := searchCall()
			resp.IgnoredCheckpoints = []model.CacheCheckpoint{model.CheckpointAfterTools}
			return resp, nil
		}),
		scripted.IgnoreCache(scripted.Call("startExport", `{"table":"orders"}`)),
	)
	req := workspaceRequest()
	req.Cache = model.CacheCheckpoints{AfterSystem: true, AfterTools: true}
	resp, err := Wrap(inner).Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n := inner.Calls(); n != 2 {
		t.Fatalf("%d inner requests, want a search round and the business call", n)
	}
	for i, r := range inner.Requests() {
		if r.Cache != req.Cache {
			t.Fatalf("inner request %d: Cache = %+v, want the request's", i+1, r.Cache)
		}
	}
	want := []model.CacheCheckpoint{model.CheckpointAfterTools, model.CheckpointAfterSystem}
	if !slices.Equal(resp.IgnoredCheckpoints, want) {
		t.Fatalf("IgnoredCheckpoints = %v, want %v", resp.IgnoredCheckpoints, want)
	}
}

// searchCall is a response calling the portable search tool.
func searchCall() *model.Response {
	call := model.ToolCall{ID: "call_s", Name: model.DefaultSearchToolName, Payload: []byte(`{"query":"export csv"}`)}
	part := call
	return &model.Response{
		Messages:   []model.Message{{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &part}}}},
		ToolCalls:  []model.ToolCall{call},
		StopReason: model.StopToolUse,
	}
}
