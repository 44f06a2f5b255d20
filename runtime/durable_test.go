package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine/inmem"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
)

// durableEngine is the in-memory engine claiming to be durable, as
// engine/temporal is.
type durableEngine struct{ *inmem.Engine }

func (durableEngine) Durable() bool { return true }

// TestDurableRunsAreNeverRecordedInterrupted: a runtime on a durable
// engine (engine.Durable) loses its lease — its process died — while a
// call of its run is in flight; another runtime on the same log leaves the
// run alone, since the engine continues it on another worker, and the run
// completes.
func TestDurableRunsAreNeverRecordedInterrupted(t *testing.T) {
	shared := NewMemoryRunLog()
	started, release := make(chan struct{}), make(chan struct{})
	a := newFixtureWith(t, AgentRegistration{}, []Option{WithEngine(durableEngine{inmem.New()}), WithRunLog(shared), WithRunLease(100 * time.Millisecond)},
		[]fixtureTool{{spec: newSpec(t, "charge"), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
			close(started)
			<-release
			return &planner.ToolResult{Result: []byte(`{"charged":true}`)}, nil
		}}}, scripted.Call("charge", `{}`), scripted.Reply("charged"))
	if !strings.HasSuffix(a.rt.Owner(), durableOwnerSuffix) {
		t.Fatalf("owner %q of a runtime on a durable engine", a.rt.Owner())
	}
	h, err := a.rt.Start(context.Background(), "assistant", RunInput{Messages: []model.Message{model.UserMessage("charge")}})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	a.rt.Close() // A's lease lapses within 100ms

	b, err := New(WithRunLog(shared), WithRunLease(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Wait until A's lease has lapsed for sure: the run is stale.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		stale, err := shared.Stale(context.Background(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if len(stale) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("A's run never became stale")
		}
	}
	got, err := b.RecoverInterrupted(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("recovered %+v, %v; want nothing", got, err)
	}
	close(release)
	out, err := h.Wait(context.Background())
	if err != nil || out.Status != StatusCompleted {
		t.Fatalf("run = %+v, %v; want it completed", out, err)
	}
}
