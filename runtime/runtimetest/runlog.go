package runtimetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// logOf reads a run's whole record from the fixture's run log.
func logOf(t *testing.T, rt *runtime.Runtime, runID string) []runtime.EventRecord {
	t.Helper()
	recs, err := rt.RunLog().Read(context.Background(), runID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func testRunLogHoldsEverySubscribedEventOnceInOrder(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}},
		scripted.Call("lookup", `{"q":"orders"}`),
		scripted.Reply("There are 3 rows."),
	)
	out := f.run("How many orders?")
	subscribed := evtEvery(f, out.RunID)
	recs := logOf(t, f.rt, out.RunID)
	if len(recs) != len(subscribed) {
		t.Fatalf("the log holds %d events, subscribers saw %d", len(recs), len(subscribed))
	}
	for i, rec := range recs {
		if rec.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d: want 1, 2, … without gaps", i, rec.Seq)
		}
		want, _ := runtime.MarshalEvent(runtime.NewEventRecord(subscribed[i]))
		got, _ := runtime.MarshalEvent(rec)
		if string(got) != string(want) {
			t.Fatalf("record %d = %s\nsubscribers saw %s", i, got, want)
		}
		if rec.RunID != out.RunID || rec.SessionID != out.SessionID || rec.Agent != "assistant" || rec.Time.IsZero() {
			t.Fatalf("record %d lacks its header: %+v", i, rec.EventHeader)
		}
	}
	// The attempt: the call's events name it and its step.
	for _, rec := range recs {
		switch rec.Type {
		case runtime.EventToolCallScheduled, runtime.EventToolResult:
			if rec.CallID == "" || rec.Step != 1 {
				t.Fatalf("%s names call %q of step %d; want the call of step 1", rec.Type, rec.CallID, rec.Step)
			}
		case runtime.EventPlanned:
			if rec.Step == 0 {
				t.Fatalf("planned event without its step")
			}
		}
	}
	info, err := f.rt.RunLog().Run(context.Background(), out.RunID)
	if err != nil || info.Status != runtime.StatusCompleted || info.LastSeq != int64(len(recs)) || info.Owner != f.rt.Owner() {
		t.Fatalf("run info = %+v, %v; want completed at seq %d, owned by %s", info, err, len(recs), f.rt.Owner())
	}
}

func testRunLogNumbersOnAcrossAContinuation(t *testing.T, newEngine NewEngine) {
	f := newFixtureWith(t, newEngine, runtime.AgentRegistration{},
		[]runtime.Option{runtime.WithToolConfirmation("ws.write", tools.ConfirmationSpec{PromptTemplate: "Really write {{ .key }}?"})},
		[]fixtureTool{{spec: newSpec(t, "write", withPayload(t, `{"type":"object","properties":{"key":{"type":"string"}}}`)), handler: ok(`{"ok":true}`)}},
		scripted.Call("write", `{"key":"k1"}`),
		scripted.Reply("written"),
	)
	out := f.run("write k1")
	info, _ := f.rt.RunLog().Run(context.Background(), out.RunID)
	if info.Status != runtime.StatusSuspended {
		t.Fatalf("suspended run's status in the log = %s", info.Status)
	}
	suspendedAt := info.LastSeq
	f.cont(out.RunID, out.Suspension.Pending[0].Approve())
	recs := logOf(t, f.rt, out.RunID)
	var types []string
	for i, rec := range recs {
		if rec.Seq != int64(i+1) {
			t.Fatalf("seq %d at position %d", rec.Seq, i)
		}
		types = append(types, string(rec.Type))
	}
	if recs[suspendedAt-1].Type != runtime.EventAwaiting || recs[suspendedAt].Type != runtime.EventRunStarted {
		t.Fatalf("events = %v; want awaiting at %d, then the continuation's run_started", types, suspendedAt)
	}
	if last := recs[len(recs)-1]; last.Type != runtime.EventRunCompleted {
		t.Fatalf("last event = %s", last.Type)
	}
	e, err := recs[suspendedAt].Event()
	if err != nil || !e.(runtime.RunStarted).Continued {
		t.Fatalf("continuation's start = %+v, %v", e, err)
	}
}

func testRunLogRecordsFailuresAndCancellations(t *testing.T, newEngine NewEngine) {
	t.Run("failed", func(t *testing.T) {
		f := newFixture(t, newEngine, runtime.RunPolicy{}, nil, scripted.Fail(errors.New("provider down")))
		runID := uniqueRunID("r-failed")
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		_, err := f.rt.Run(ctx, "assistant", runtime.RunInput{Messages: []model.Message{model.UserMessage("hi")}}, runtime.WithRunID(runID))
		if err == nil {
			t.Fatal("the run did not fail")
		}
		recs := logOf(t, f.rt, runID)
		last := recs[len(recs)-1]
		e, _ := last.Event()
		if failed, ok := e.(runtime.RunFailed); !ok || !strings.Contains(failed.Error, "provider down") {
			t.Fatalf("last event = %s %s; want run_failed naming the cause", last.Type, last.Data)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		started := make(chan struct{})
		var once sync.Once
		f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: newSpec(t, "wait"), handler: func(ctx context.Context, _ *runtime.ToolCall) (*planner.ToolResult, error) {
			once.Do(func() { close(started) })
			<-ctx.Done()
			return nil, ctx.Err()
		}}}, scripted.Call("wait", `{}`), scripted.Reply("never"))
		h, err := f.rt.Start(context.Background(), "assistant", runtime.RunInput{Messages: []model.Message{model.UserMessage("wait")}})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-started:
		case <-time.After(runTimeout):
			t.Fatal("the tool never started")
		}
		if err := h.Cancel(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		if _, err := h.Wait(ctx); err == nil {
			t.Fatal("a cancelled run returned no error")
		}
		info, err := f.rt.RunLog().Run(context.Background(), h.RunID)
		if err != nil || info.Status != runtime.StatusCancelled {
			t.Fatalf("cancelled run's info = %+v, %v; want cancelled", info, err)
		}
	})
}

// failingLog is a run log whose appends fail from the nth on.
type failingLog struct {
	runtime.RunLog
	from    int
	appends atomic.Int32
}

func (l *failingLog) Append(ctx context.Context, owner string, events []runtime.EventRecord) error {
	if int(l.appends.Add(1)) >= l.from {
		return errors.New("disk full")
	}
	return l.RunLog.Append(ctx, owner, events)
}

func testACallIsNeverRunUnrecorded(t *testing.T, newEngine NewEngine) {
	// Appends fail from the second on: the run started, but the call's
	// scheduling cannot be recorded, so the call must not run.
	log := &failingLog{RunLog: runtime.NewMemoryRunLog(), from: 2}
	f := newFixtureWith(t, newEngine, runtime.AgentRegistration{}, []runtime.Option{runtime.WithRunLog(log)},
		[]fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{}`)}},
		scripted.Call("lookup", `{}`), scripted.Reply("done"))
	defer f.rt.Close()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	_, err := f.rt.Run(ctx, "assistant", runtime.RunInput{Messages: []model.Message{model.UserMessage("go")}})
	if err == nil || !strings.Contains(err.Error(), "run log") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("run error = %v; want the run log's failure", err)
	}
	if got := f.executed(); len(got) != 0 {
		t.Fatalf("executed %v although its scheduling was not recorded", got)
	}
}

// testSlowFollowerDoesNotHoldTheRun: a follower that sleeps between
// events is still reading when the run has finished, and then reads every
// event in order.
func testSlowFollowerDoesNotHoldTheRun(t *testing.T, newEngine NewEngine) {
	f := newFixture(t, newEngine, runtime.RunPolicy{}, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{}`)}},
		scripted.Call("lookup", `{"n":1}`), scripted.Call("lookup", `{"n":2}`), scripted.Call("lookup", `{"n":3}`),
		scripted.Reply("done"))
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	runID := uniqueRunID("r-slow")
	var mu sync.Mutex
	var seen []int64
	runDone := make(chan struct{})
	seenAtRunEnd := -1
	followed := make(chan error, 1)
	go func() {
		followed <- f.rt.Follow(ctx, runID, 0, func(rec runtime.EventRecord) error {
			mu.Lock()
			seen = append(seen, rec.Seq)
			mu.Unlock()
			select {
			case <-runDone:
			case <-time.After(runTimeout):
				return errors.New("the run did not finish while its follower waited")
			}
			return nil
		})
	}()
	if _, err := f.rt.Run(ctx, "assistant", runtime.RunInput{Messages: []model.Message{model.UserMessage("go")}}, runtime.WithRunID(runID)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	seenAtRunEnd = len(seen)
	mu.Unlock()
	close(runDone)
	if err := <-followed; err != nil {
		t.Fatal(err)
	}
	recs := logOf(t, f.rt, runID)
	if seenAtRunEnd > 1 {
		t.Fatalf("the follower had seen %d events when the run ended; its first event holds it until then, so at most 1", seenAtRunEnd)
	}
	if len(seen) != len(recs) {
		t.Fatalf("the follower saw %d of %d events", len(seen), len(recs))
	}
	for i, s := range seen {
		if s != int64(i+1) {
			t.Fatalf("the follower saw %v: not in order", seen)
		}
	}
}
