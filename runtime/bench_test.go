package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// BenchmarkRunOverhead measures what the runtime adds around tool calls on
// the in-memory engine: each iteration is one run whose first step calls
// `calls` no-op tools in one batch and whose second step answers. The
// scripted model replays prebuilt responses verbatim (no token counting),
// so the figures are the runtime's own: planning activities, admission,
// payload validation, execution activities, events and the session save.
// ns/toolcall divides the run's time by its tool calls. model=replay swaps
// the scripted model for a client that returns the same two responses
// without copying or recording anything, to show the runtime's share.
//
//	go test -run=NONE -bench=BenchmarkRunOverhead -benchmem ./runtime/
func BenchmarkRunOverhead(b *testing.B) {
	for _, m := range []string{"scripted", "replay"} {
		for _, calls := range []int{1, 10} {
			b.Run(fmt.Sprintf("model=%s/calls=%d", m, calls), func(b *testing.B) {
				benchmarkRun(b, m, calls)
			})
		}
	}
}

func benchmarkRun(b *testing.B, kind string, calls int) {
	var steps []scripted.Step
	callStep := &model.Response{StopReason: model.StopToolUse, Usage: model.Usage{InputTokens: 1}}
	msg := model.Message{Role: model.RoleAssistant}
	for i := range calls {
		tc := model.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "noop", Payload: json.RawMessage(`{"q":"x"}`)}
		msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolCall, ToolCall: &tc})
		callStep.ToolCalls = append(callStep.ToolCalls, tc)
	}
	callStep.Messages = []model.Message{msg}
	answer := &model.Response{Messages: []model.Message{model.AssistantMessage("done")}, StopReason: model.StopEndTurn, Usage: model.Usage{InputTokens: 1}}
	var client model.Client = &replayClient{steps: [2]*model.Response{callStep, answer}}
	if kind == "scripted" {
		for range b.N {
			steps = append(steps, scripted.Respond(callStep), scripted.Respond(answer))
		}
		client = scripted.New(steps...)
	}
	rt, err := New(WithModel(model.ModelClassDefault, client))
	if err != nil {
		b.Fatal(err)
	}
	payload, err := tools.NewTypeSpec("", json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	spec := tools.ToolSpec{Name: "ws.noop", Title: "No-op", Description: "Does nothing.", Payload: payload}
	spec.Search = search.NewDocument(spec.SearchSource())
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "ws", Specs: []tools.ToolSpec{spec}, Executor: ToolExecutorFunc(func(context.Context, *ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{Result: json.RawMessage(`{}`)}, nil
	})}); err != nil {
		b.Fatal(err)
	}
	if err := rt.RegisterAgent(AgentRegistration{Name: "a", Planner: planner.NewStandard(), Uses: []ToolsetUse{{Toolset: "ws"}}}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	in := RunInput{Messages: []model.Message{model.UserMessage("go")}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		out, err := rt.StartOneShot(ctx, "a", in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := out.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/toolcall")
}

// replayClient answers with two fixed responses in turn and records
// nothing: the benchmark's floor, to separate the scripted model's own cost
// (it deep-copies and records every request) from the runtime's.
type replayClient struct {
	mu    sync.Mutex
	n     int
	steps [2]*model.Response
}

func (c *replayClient) Complete(context.Context, *model.Request) (*model.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.steps[c.n%2]
	c.n++
	return r, nil
}

// Stream completes the request, then delivers it as chunks.
func (c *replayClient) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := c.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}
