package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/model"
)

// callsThenReply is a model that calls getOrder n times in one turn, then
// answers, with prebuilt responses (no token counting, nothing recorded):
// it decides from the transcript, so every run plays the same two steps.
type callsThenReply struct{ call, answer *model.Response }

func newCallsThenReply(n int) callsThenReply {
	call := &model.Response{StopReason: model.StopToolUse, Usage: model.Usage{InputTokens: 1}}
	msg := model.Message{Role: model.RoleAssistant}
	for i := range n {
		tc := model.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "getOrder", Payload: json.RawMessage(fmt.Sprintf(`{"order_id":"A-%d"}`, i))}
		msg.Parts = append(msg.Parts, model.Part{Kind: model.PartToolCall, ToolCall: &tc})
		call.ToolCalls = append(call.ToolCalls, tc)
	}
	call.Messages = []model.Message{msg}
	answer := &model.Response{Messages: []model.Message{model.AssistantMessage("done")}, StopReason: model.StopEndTurn, Usage: model.Usage{InputTokens: 1}}
	return callsThenReply{call: call, answer: answer}
}

func (m callsThenReply) Complete(_ context.Context, req *model.Request) (*model.Response, error) {
	for _, msg := range req.Messages {
		for _, p := range msg.Parts {
			if p.ToolResult != nil {
				return m.answer, nil
			}
		}
	}
	return m.call, nil
}

func (m callsThenReply) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := m.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}

// BenchmarkToolCalls measures a run of one turn of n tool calls and the
// answer (two planning steps) on the in-memory engine and on Temporal (an
// in-process server), side by side: the difference is what the durable
// engine costs, and the 10-call runs give what one more call costs.
func BenchmarkToolCalls(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1, 10} {
		for _, eng := range []struct {
			name string
			make func(b *testing.B) engine.Engine
		}{
			{"inmem", func(*testing.B) engine.Engine { return inmem.New() }},
			{"temporal", func(b *testing.B) engine.Engine { return newWorker(b, newQueue(b), temporal.Options{}) }},
		} {
			b.Run(fmt.Sprintf("calls=%d/%s", n, eng.name), func(b *testing.B) {
				rt := newDeskOn(b, eng.make(b), newCallsThenReply(n))
				b.ReportAllocs()
				for b.Loop() {
					out, err := rt.Run(ctx, "desk", ask("Where are my orders?"))
					if err != nil {
						b.Fatal(err)
					}
					if out.ToolCalls != n {
						b.Fatalf("%d tool calls, want %d", out.ToolCalls, n)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/call")
			})
		}
	}
}
