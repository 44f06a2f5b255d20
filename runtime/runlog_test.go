package runtime

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// logOf reads a run's whole record from the fixture's run log.
func logOf(t *testing.T, rt *Runtime, runID string) []EventRecord {
	t.Helper()
	recs, err := rt.RunLog().Read(context.Background(), runID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRunLogHoldsEverySubscribedEventOnceInOrder(t *testing.T) {
	f := newFixture(t, RunPolicy{}, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":3}`)}},
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
		want, _ := MarshalEvent(NewEventRecord(subscribed[i]))
		got, _ := MarshalEvent(rec)
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
		case EventToolCallScheduled, EventToolResult:
			if rec.CallID == "" || rec.Step != 1 {
				t.Fatalf("%s names call %q of step %d; want the call of step 1", rec.Type, rec.CallID, rec.Step)
			}
		case EventPlanned:
			if rec.Step == 0 {
				t.Fatalf("planned event without its step")
			}
		}
	}
	info, err := f.rt.RunLog().Run(context.Background(), out.RunID)
	if err != nil || info.Status != StatusCompleted || info.LastSeq != int64(len(recs)) || info.Owner != f.rt.Owner() {
		t.Fatalf("run info = %+v, %v; want completed at seq %d, owned by %s", info, err, len(recs), f.rt.Owner())
	}
}

func TestRunLogNumbersOnAcrossAContinuation(t *testing.T) {
	f := newFixtureWith(t, AgentRegistration{},
		[]Option{WithToolConfirmation("ws.write", tools.ConfirmationSpec{PromptTemplate: "Really write {{ .key }}?"})},
		[]fixtureTool{{spec: newSpec(t, "write", withPayload(t, `{"type":"object","properties":{"key":{"type":"string"}}}`)), handler: ok(`{"ok":true}`)}},
		scripted.Call("write", `{"key":"k1"}`),
		scripted.Reply("written"),
	)
	out := f.run("write k1")
	info, _ := f.rt.RunLog().Run(context.Background(), out.RunID)
	if info.Status != StatusSuspended {
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
	if recs[suspendedAt-1].Type != EventAwaiting || recs[suspendedAt].Type != EventRunStarted {
		t.Fatalf("events = %v; want awaiting at %d, then the continuation's run_started", types, suspendedAt)
	}
	if last := recs[len(recs)-1]; last.Type != EventRunCompleted {
		t.Fatalf("last event = %s", last.Type)
	}
	e, err := recs[suspendedAt].Event()
	if err != nil || !e.(RunStarted).Continued {
		t.Fatalf("continuation's start = %+v, %v", e, err)
	}
}

func TestRunLogRecordsFailuresAndCancellations(t *testing.T) {
	t.Run("failed", func(t *testing.T) {
		f := newFixture(t, RunPolicy{}, nil, scripted.Fail(errors.New("provider down")))
		_, err := f.rt.Run(context.Background(), "assistant", RunInput{Messages: []model.Message{model.UserMessage("hi")}}, WithRunID("r-failed"))
		if err == nil {
			t.Fatal("the run did not fail")
		}
		recs := logOf(t, f.rt, "r-failed")
		last := recs[len(recs)-1]
		e, _ := last.Event()
		if failed, ok := e.(RunFailed); !ok || !strings.Contains(failed.Error, "provider down") {
			t.Fatalf("last event = %s %s; want run_failed naming the cause", last.Type, last.Data)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		started := make(chan struct{})
		f := newFixture(t, RunPolicy{}, []fixtureTool{{spec: newSpec(t, "wait"), handler: func(ctx context.Context, _ *ToolCall) (*planner.ToolResult, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}}}, scripted.Call("wait", `{}`), scripted.Reply("never"))
		h, err := f.rt.Start(context.Background(), "assistant", RunInput{Messages: []model.Message{model.UserMessage("wait")}})
		if err != nil {
			t.Fatal(err)
		}
		<-started
		if err := h.Cancel(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Wait(context.Background()); err == nil {
			t.Fatal("a cancelled run returned no error")
		}
		info, err := f.rt.RunLog().Run(context.Background(), h.RunID)
		if err != nil || info.Status != StatusCancelled {
			t.Fatalf("cancelled run's info = %+v, %v; want cancelled", info, err)
		}
	})
}

// failingLog is a run log whose appends fail from the nth on.
type failingLog struct {
	RunLog
	from    int
	appends atomic.Int32
}

func (l *failingLog) Append(ctx context.Context, owner string, events []EventRecord) error {
	if int(l.appends.Add(1)) >= l.from {
		return errors.New("disk full")
	}
	return l.RunLog.Append(ctx, owner, events)
}

func TestACallIsNeverRunUnrecorded(t *testing.T) {
	// Appends fail from the second on: the run started, but the call's
	// scheduling cannot be recorded, so the call must not run.
	log := &failingLog{RunLog: NewMemoryRunLog(), from: 2}
	f := newFixtureWith(t, AgentRegistration{}, []Option{WithRunLog(log)},
		[]fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{}`)}},
		scripted.Call("lookup", `{}`), scripted.Reply("done"))
	defer f.rt.Close()
	_, err := f.rt.Run(context.Background(), "assistant", RunInput{Messages: []model.Message{model.UserMessage("go")}})
	if err == nil || !strings.Contains(err.Error(), "run log") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("run error = %v; want the run log's failure", err)
	}
	if got := f.executed(); len(got) != 0 {
		t.Fatalf("executed %v although its scheduling was not recorded", got)
	}
}

// TestRecoverInterruptedReportsStartedCallsOnce: runtime A's process is
// gone (Close stops its lease; its tool never returns in time); runtime B
// on the same log records the run interrupted, the started call
// outcome_unknown, and runs nothing. When A's call finally returns, its
// run fails instead of writing after the interruption.
func TestRecoverInterruptedReportsStartedCallsOnce(t *testing.T) {
	shared := NewMemoryRunLog()
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	a := newFixtureWith(t, AgentRegistration{}, []Option{WithRunLog(shared), WithRunLease(100 * time.Millisecond)},
		[]fixtureTool{{spec: newSpec(t, "charge"), handler: func(context.Context, *ToolCall) (*planner.ToolResult, error) {
			runs.Add(1)
			close(started)
			<-release
			return &planner.ToolResult{Result: []byte(`{"charged":true}`)}, nil
		}}}, scripted.Call("charge", `{}`), scripted.Reply("charged"))
	h, err := a.rt.Start(context.Background(), "assistant", RunInput{Messages: []model.Message{model.UserMessage("charge")}})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	a.rt.Close() // A's lease is no longer renewed: it lapses within 100ms

	b, err := New(WithRunLog(shared), WithRunLease(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var got []RunInfo
	for deadline := time.Now().Add(10 * time.Second); len(got) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got, err = b.RecoverInterrupted(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			// B's own lease loop may have recorded it first.
			if info, _ := shared.Run(context.Background(), h.RunID); info.Status == StatusInterrupted {
				got = []RunInfo{info}
			}
		}
	}
	if len(got) != 1 || got[0].RunID != h.RunID {
		t.Fatalf("recovered %+v; want run %s", got, h.RunID)
	}
	recs := logOf(t, b, h.RunID)
	last, unknown := recs[len(recs)-1], recs[len(recs)-2]
	e, _ := last.Event()
	interrupted, ok := e.(RunInterrupted)
	if !ok || interrupted.Owner != a.rt.Owner() || len(interrupted.UnknownCalls) != 1 {
		t.Fatalf("last event = %s %s; want run_interrupted naming A and one unknown call", last.Type, last.Data)
	}
	ue, _ := unknown.Event()
	result, ok := ue.(ToolResultReceived)
	if !ok || result.Failure == nil || result.Failure.Code != toolcall.KindOutcomeUnknown || result.CallID != interrupted.UnknownCalls[0] || result.Tool != "ws.charge" {
		t.Fatalf("event before the interruption = %s %s; want the call's outcome_unknown result", unknown.Type, unknown.Data)
	}
	// Nothing more is recorded or run, also on a second recovery.
	if again, _ := b.RecoverInterrupted(context.Background()); len(again) != 0 {
		t.Fatalf("recovered again: %+v", again)
	}
	close(release)
	_, err = h.Wait(context.Background())
	if !errors.Is(err, ErrRunEnded) {
		t.Fatalf("A's run after its interruption = %v; want it to fail wrapping ErrRunEnded", err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the call ran %d times, want once", n)
	}
	if after := logOf(t, b, h.RunID); len(after) != len(recs) {
		t.Fatalf("A wrote after the interruption: %d events, then %d", len(recs), len(after))
	}
}

// TestSlowFollowerDoesNotHoldTheRun: a follower that sleeps between
// events is still reading when the run has finished, and then reads every
// event in order.
func TestSlowFollowerDoesNotHoldTheRun(t *testing.T) {
	f := newFixture(t, RunPolicy{}, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{}`)}},
		scripted.Call("lookup", `{"n":1}`), scripted.Call("lookup", `{"n":2}`), scripted.Call("lookup", `{"n":3}`),
		scripted.Reply("done"))
	ctx := context.Background()
	var mu sync.Mutex
	var seen []int64
	runDone := make(chan struct{})
	seenAtRunEnd := -1
	followed := make(chan error, 1)
	go func() {
		followed <- f.rt.Follow(ctx, "r-slow", 0, func(rec EventRecord) error {
			mu.Lock()
			seen = append(seen, rec.Seq)
			mu.Unlock()
			select {
			case <-runDone:
			case <-time.After(10 * time.Second):
				return errors.New("the run did not finish while its follower waited")
			}
			return nil
		})
	}()
	if _, err := f.rt.Run(ctx, "assistant", RunInput{Messages: []model.Message{model.UserMessage("go")}}, WithRunID("r-slow")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	seenAtRunEnd = len(seen)
	mu.Unlock()
	close(runDone)
	if err := <-followed; err != nil {
		t.Fatal(err)
	}
	recs := logOf(t, f.rt, "r-slow")
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

func TestEventRecordShapeIsStable(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	total := 7
	e := ToolResultReceived{
		EventHeader: EventHeader{RunID: "run-1", SessionID: "s-1", Agent: "desk", ParentRunID: "run-0", ParentCallID: "c-0", Seq: 5, Time: at, Step: 2, CallID: "c-1"},
		Tool:        "orders.lookup", Result: []byte(`{"rows":3}`),
		Failure: &toolcall.Failure{Code: toolcall.KindTimeout, Message: "slow", Recovery: toolcall.RecoveryReplan},
		Bounds:  &toolcall.Bounds{Returned: 3, Total: &total}, DisplayHint: "3 rows",
		Timeline: []toolcall.ServerData{{Kind: "k", Audience: tools.AudienceTimeline, Data: []byte(`1`)}},
	}
	b, err := MarshalEvent(NewEventRecord(e))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"type":"tool_result","run_id":"run-1","session_id":"s-1","agent":"desk","parent_run_id":"run-0","parent_call_id":"c-0","seq":5,"time":"2026-12-01T10:00:00Z","step":2,"call_id":"c-1",` +
		`"data":{"tool":"orders.lookup","result":{"rows":3},"failure":{"code":"timeout","message":"slow","recovery":"replan"},"bounds":{"returned":3,"total":7,"truncated":false},"display_hint":"3 rows","timeline":[{"kind":"k","audience":"timeline","data":1}]}}`
	if string(b) != want {
		t.Fatalf("record =\n%s\nwant (contract v1: fields are added, never renamed)\n%s", b, want)
	}
	rec, err := UnmarshalEvent(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := rec.Event()
	if err != nil || !reflect.DeepEqual(back, Event(e)) {
		t.Fatalf("decoded %+v, %v\nwant %+v", back, err, e)
	}
}

func TestReadersIgnoreWhatTheyDoNotKnow(t *testing.T) {
	b := []byte(`{"v":1,"type":"tool_result","run_id":"r","seq":1,"time":"2026-12-01T10:00:00Z","new_header":"x","data":{"tool":"a.b","new_field":[1]}}`)
	rec, err := UnmarshalEvent(b)
	if err != nil {
		t.Fatal(err)
	}
	e, err := rec.Event()
	if err != nil || e.(ToolResultReceived).Tool != "a.b" {
		t.Fatalf("event with unknown fields = %+v, %v", e, err)
	}
	rec.Type = "from_the_future"
	e, err = rec.Event()
	if u, ok := e.(UnknownEvent); err != nil || !ok || u.Type() != "from_the_future" || u.Seq != 1 {
		t.Fatalf("event of an unknown type = %+v, %v; want UnknownEvent", e, err)
	}
	if _, err := UnmarshalEvent([]byte(`{"v":2,"type":"x","run_id":"r","seq":1}`)); !errors.Is(err, ErrUnknownRecordFormat) {
		t.Fatalf("a version 2 record: %v; want ErrUnknownRecordFormat", err)
	}
}

func FuzzUnmarshalEvent(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"tool_result","run_id":"r","seq":1,"time":"2026-12-01T10:00:00Z","data":{"tool":"a.b","result":{}}}`))
	f.Add([]byte(`{"v":1,"type":"awaiting","run_id":"r","seq":2,"data":{"pending":[{"kind":"confirmation","prompt":"ok?"}]}}`))
	f.Add([]byte(`{"v":1,"type":"registry_read","run_id":"r","seq":3,"data":{"age_ns":"x"}}`))
	f.Add([]byte(`{"v":1,"type":"x","run_id":"r","seq":-1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := UnmarshalEvent(b)
		if err != nil {
			return
		}
		if rec.RunID == "" || rec.Seq < 1 || rec.Type == "" || rec.Version != EventFormat {
			t.Fatalf("accepted an invalid record: %+v", rec)
		}
		again, err := MarshalEvent(rec)
		if err != nil {
			t.Fatalf("an accepted record does not encode: %v", err)
		}
		back, err := UnmarshalEvent(again)
		if err != nil {
			t.Fatalf("a re-encoded record does not decode: %v\n%s", err, again)
		}
		if b2, _ := MarshalEvent(back); string(b2) != string(again) {
			t.Fatalf("re-encoding is not stable:\n%s\n%s", again, b2)
		}
		_, _ = rec.Event() // never panics; data that does not decode is an error
	})
}
