package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/engine"
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

// reexecutingLog is a run log on which a previous worker seems to have
// recorded, before dying, the batch of events that schedules a tool call:
// the batch is stored an hour earlier, then appended as given — what a
// durable engine's re-executed workflow task appends.
type reexecutingLog struct {
	RunLog
	once sync.Once
}

func (l *reexecutingLog) Append(ctx context.Context, owner string, events []EventRecord) error {
	for _, e := range events {
		if e.Type == EventToolCallScheduled {
			var err error
			l.once.Do(func() {
				earlier := slices.Clone(events)
				for i := range earlier {
					earlier[i].Time = earlier[i].Time.Add(-time.Hour)
				}
				err = l.RunLog.Append(ctx, "dead-worker/durable", earlier)
			})
			if err != nil {
				return err
			}
			break
		}
	}
	return l.RunLog.Append(ctx, owner, events)
}

// TestAReexecutedTaskRecordsNothingTwice: on a durable engine, events a
// dead worker recorded before its workflow task was re-executed elsewhere
// are the same events but for their time: the run goes on, the log keeps
// the first record of each. On the in-memory engine nothing re-executes,
// so the same difference is a conflict that fails the run.
func TestAReexecutedTaskRecordsNothingTwice(t *testing.T) {
	for _, durable := range []bool{true, false} {
		log := &reexecutingLog{RunLog: NewMemoryRunLog()}
		var eng engine.Engine = inmem.New()
		if durable {
			eng = durableEngine{inmem.New()}
		}
		f := newFixtureWith(t, AgentRegistration{}, []Option{WithEngine(eng), WithRunLog(log)},
			[]fixtureTool{{spec: newSpec(t, "charge"), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
				return &planner.ToolResult{Result: []byte(`{"charged":true}`)}, nil
			}}}, scripted.Call("charge", `{}`), scripted.Reply("charged"))
		out, err := f.rt.Run(context.Background(), "assistant", RunInput{Messages: []model.Message{model.UserMessage("charge")}})
		if !durable {
			if !errors.Is(err, ErrEventConflict) {
				t.Fatalf("on the in-memory engine: %v, want ErrEventConflict", err)
			}
			continue
		}
		if err != nil || out.Status != StatusCompleted {
			t.Fatalf("on a durable engine: %+v, %v; want the run completed", out, err)
		}
		recs, err := log.Read(context.Background(), out.RunID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range recs {
			if rec.Seq != int64(i+1) {
				t.Fatalf("event %d has sequence number %d", i+1, rec.Seq)
			}
			if rec.Type == EventToolCallScheduled && time.Since(rec.Time) < 30*time.Minute {
				t.Fatalf("the scheduling was recorded again, at %s", rec.Time)
			}
		}
	}
}
