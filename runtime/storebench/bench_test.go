package storebench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/internal/ordersdesk"
	"github.com/quiver-go/quiver/runtime/redisstore"
	"github.com/quiver-go/quiver/toolcall"
)

// backends are the stores measured, each opened fresh for a benchmark.
var backends = []struct {
	name string
	open func(b *testing.B) runtime.Store
}{
	{"memory", func(*testing.B) runtime.Store { return runtime.NewMemoryStore() }},
	{"bolt", func(b *testing.B) runtime.Store {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), boltstore.FileName))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}},
	{"redis", func(b *testing.B) runtime.Store {
		srv := redistest.Start(b, redistest.Options{AOF: true}) // appendfsync always: durable approvals
		s, err := redisstore.Open(context.Background(), srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}},
}

// newRuntime returns the orders desk (runtime/internal/ordersdesk) on s,
// its model playing steps, its executor doing nothing.
func newRuntime(b *testing.B, s runtime.Store, steps []scripted.Step) *runtime.Runtime {
	b.Helper()
	exec := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
	rt, err := ordersdesk.New(s, scripted.New(steps...), exec)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Close() })
	return rt
}

// BenchmarkSuspendAndContinue: one op is a run that suspends at its
// confirmation (a checkpoint put) and its continuation to completion (the
// checkpoint taken, the session saved).
func BenchmarkSuspendAndContinue(b *testing.B) {
	ctx := context.Background()
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			steps := make([]scripted.Step, 0, 2*b.N)
			for range b.N {
				steps = append(steps, scripted.Call("cancelOrder", `{"order_id":"A-1"}`), scripted.Reply("Cancelled."))
			}
			rt := newRuntime(b, be.open(b), steps)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				out, err := rt.Run(ctx, ordersdesk.Agent, runtime.RunInput{SessionID: fmt.Sprint("s", i), Messages: []model.Message{model.UserMessage("Cancel A-1.")}})
				if err != nil || out.Status != runtime.StatusSuspended {
					b.Fatalf("run: %+v %v", out, err)
				}
				h, err := rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve())
				if err != nil {
					b.Fatal(err)
				}
				if done, err := h.Wait(ctx); err != nil || done.Status != runtime.StatusCompleted {
					b.Fatalf("continuation: %+v %v", done, err)
				}
			}
		})
	}
}

// BenchmarkSessionRun: one op is a run of a new session that answers at
// once and saves its transcript.
func BenchmarkSessionRun(b *testing.B) {
	ctx := context.Background()
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			steps := make([]scripted.Step, b.N)
			for i := range steps {
				steps[i] = scripted.Reply("Hello.")
			}
			rt := newRuntime(b, be.open(b), steps)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				out, err := rt.Run(ctx, ordersdesk.Agent, runtime.RunInput{SessionID: fmt.Sprint("s", i), Messages: []model.Message{model.UserMessage("Hi.")}})
				if err != nil || out.Status != runtime.StatusCompleted {
					b.Fatalf("run: %+v %v", out, err)
				}
			}
		})
	}
}
