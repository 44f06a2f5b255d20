package runtime

import (
	"context"
	"errors"
	"reflect"
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

// TestRecoverInterruptedReportsStartedCallsOnce: runtime A's process is
// gone (Close stops its lease; its tool never returns in time); runtime B
// on the same log records the run interrupted, the started call
// outcome_unknown, and runs nothing. When A's call finally returns, its
// run fails instead of writing after the interruption.
//
// It stays here: it plays a process's death by closing a runtime whose
// workflow runs on, which means a lost run only on the in-memory engine (a
// durable engine's workflow would go on on another worker).
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
