package temporal_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

// callsThenReply is a model that calls getOrder n times in one turn, then
// answers: every run plays the same two steps, whatever ran before.
func callsThenReply(n int) *scripted.Client {
	calls := make([]scripted.ToolCallSpec, n)
	for i := range calls {
		calls[i] = scripted.ToolCallSpec{Name: "getOrder", Payload: fmt.Sprintf(`{"order_id":"A-%d"}`, i)}
	}
	step := scripted.Choose(func(req *model.Request) scripted.Step {
		for _, m := range req.Messages {
			for _, p := range m.Parts {
				if p.ToolResult != nil {
					return scripted.Reply("done")
				}
			}
		}
		return scripted.Calls(calls...)
	})
	return scripted.New(slices.Repeat([]scripted.Step{step}, 1<<20)...)
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
				rt := newDeskOn(b, eng.make(b), callsThenReply(n))
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
