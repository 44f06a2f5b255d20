package storebench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/redisstore"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools/contract"
)

// callsPerRun is how many tool calls one run of BenchmarkRunLogPerToolCall
// makes before it answers.
const callsPerRun = 10

// discardLog is the peer: a run log that keeps nothing, so the difference
// to it is what recording costs.
type discardLog struct{ runtime.RunLog }

func (discardLog) Append(context.Context, string, []runtime.EventRecord) error { return nil }
func (discardLog) Renew(context.Context, string, time.Time) error              { return nil }
func (discardLog) Stale(context.Context, time.Time) ([]runtime.RunInfo, error) { return nil, nil }

// followerPause is how long the slow follower sleeps after each event it
// reads: far longer than the run takes to emit the next one.
const followerPause = 10 * time.Millisecond

// runLogs are the logs measured, each opened fresh for a benchmark; slow
// adds a follower that sleeps followerPause after each event it reads.
var runLogs = []struct {
	name string
	slow bool
	open func(b *testing.B) runtime.RunLog
}{
	{"none", false, func(*testing.B) runtime.RunLog { return discardLog{runtime.NewMemoryRunLog()} }},
	{"memory", false, func(*testing.B) runtime.RunLog { return runtime.NewMemoryRunLog() }},
	{"memory+slow-follower", true, func(*testing.B) runtime.RunLog { return runtime.NewMemoryRunLog() }},
	{"bolt", false, func(b *testing.B) runtime.RunLog {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), boltstore.FileName))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s.RunLog()
	}},
	{"redis", false, openRedisLog},
	{"redis+slow-follower", true, openRedisLog},
}

func openRedisLog(b *testing.B) runtime.RunLog {
	srv := redistest.Start(b, redistest.Options{AOF: true}) // appendfsync always
	s, err := redisstore.Open(context.Background(), srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s.RunLog()
}

// BenchmarkRunLogPerToolCall: one op is a one-shot run of callsPerRun
// tool calls (an executor that answers at once) and an answer, on the
// in-memory engine, with its events recorded in each log; ns/call is the
// op's time per tool call. Against "none" it is what the run log adds per
// call.
func BenchmarkRunLogPerToolCall(b *testing.B) {
	ctx := context.Background()
	for _, l := range runLogs {
		b.Run(l.name, func(b *testing.B) {
			steps := make([]scripted.Step, 0, (callsPerRun+1)*b.N)
			for range b.N {
				for range callsPerRun {
					steps = append(steps, scripted.Call("noop", `{}`))
				}
				steps = append(steps, scripted.Reply("Done."))
			}
			log := l.open(b)
			rt := newLogRuntime(b, log, steps)
			b.ReportAllocs()
			b.ResetTimer()
			var followers []chan error
			for i := range b.N {
				id := fmt.Sprint("r", i)
				if l.slow {
					// Each run gets its own follower, still reading
					// while the next runs start: none is waited for
					// before the last run ends.
					followed := make(chan error, 1)
					followers = append(followers, followed)
					go func() {
						followed <- runtime.FollowRunLog(ctx, log, id, 0, func(runtime.EventRecord) error {
							time.Sleep(followerPause)
							return nil
						})
					}()
				}
				h, err := rt.StartOneShot(ctx, "bench", runtime.RunInput{Messages: []model.Message{model.UserMessage("Go.")}}, runtime.WithRunID(id))
				if err != nil {
					b.Fatal(err)
				}
				if out, err := h.Wait(ctx); err != nil || out.ToolCalls != callsPerRun {
					b.Fatalf("run: %+v %v", out, err)
				}
			}
			b.StopTimer()
			for _, followed := range followers {
				if err := <-followed; err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*callsPerRun), "ns/call")
		})
	}
}

// newLogRuntime returns a runtime recording in log, running agent "bench"
// over bench.noop, its model playing steps.
func newLogRuntime(b *testing.B, log runtime.RunLog, steps []scripted.Step) *runtime.Runtime {
	b.Helper()
	rt, err := runtime.New(runtime.WithRunLog(log), runtime.WithModel(model.ModelClassDefault, scripted.New(steps...)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close() })
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "bench", Tools: []contract.ToolDeclaration{
		{Name: "noop", Title: "No-op", Description: "Do nothing.", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}})
	if err != nil {
		b.Fatal(err)
	}
	exec := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		return &toolcall.Result{Result: json.RawMessage(`{"ok":true}`)}, nil
	})
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "bench", Specs: specs, Executor: exec}); err != nil {
		b.Fatal(err)
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "bench", Planner: planner.NewStandard(), Uses: []runtime.ToolsetUse{{Toolset: "bench"}}}); err != nil {
		b.Fatal(err)
	}
	return rt
}
