package storetest

import (
	"context"
	"encoding/json"
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
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// RunRuntime runs whole runs on the stores open returns: two runtimes, as
// two processes would be, on one backend (a and b may be one value when
// the backend cannot be opened twice). It checks what the runtime promises
// on every store: two concurrent runs of one session leave one transcript
// and give the other run its output with a SessionConflictError; a run
// suspended on one runtime is continued exactly once from either; a
// checkpoint never holds internal server data.
func RunRuntime(t *testing.T, open func(t *testing.T) (a, b runtime.Store)) {
	t.Run("ConcurrentRunsOfOneSession", func(t *testing.T) { a, b := open(t); concurrentSessionRuns(t, a, b) })
	t.Run("ContinuedOnceFromEitherRuntime", func(t *testing.T) { a, b := open(t); continuedOnce(t, a, b) })
	t.Run("CheckpointHoldsNoInternalServerData", func(t *testing.T) { a, _ := open(t); noInternalData(t, a) })
	t.Run("RunLogHoldsNoInternalServerData", func(t *testing.T) { a, _ := open(t); logNoInternalData(t, a) })
	t.Run("RunLogFollowedFromTheOtherRuntime", func(t *testing.T) { a, b := open(t); logFollowedAcross(t, a, b) })
	t.Run("ChildSuspensionContinuedFromTheOtherRuntime", func(t *testing.T) { a, b := open(t); childSuspensionAcross(t, a, b) })
}

// chartThenCancel is orders.chart with server data of every audience, and
// orders.cancelOrder's plain result.
var chartThenCancel = toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	if call.Ident != "orders.chart" {
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	}
	return &toolcall.Result{Result: json.RawMessage(`{"charted":true}`), ServerData: []toolcall.ServerData{
		{Kind: "metrics.points", Audience: tools.AudienceTimeline, Data: json.RawMessage(`"TIMELINE-POINTS"`)},
		{Kind: "audit.evidence", Audience: tools.AudienceEvidence, Data: json.RawMessage(`"EVIDENCE-ROWS"`)},
		{Kind: "composition.sidecar", Audience: tools.AudienceInternal, Data: json.RawMessage(`"` + internalMarker + `"`)},
	}}, nil
})

// logNoInternalData: a run whose tool produced server data of every
// audience, approved and completed: its run log records the timeline,
// never the internal data.
func logNoInternalData(t *testing.T, s runtime.Store) {
	rt := newRuntime(t, s, chartThenCancel,
		scripted.Calls(scripted.ToolCallSpec{Name: "chart", Payload: `{}`}, scripted.ToolCallSpec{Name: "cancelOrder", Payload: `{"order_id":"A-1"}`}),
		scripted.Reply("Done."))
	out, err := rt.Run(ctx, "desk", input("chart, then cancel A-1", ""))
	if err != nil || out.Status != runtime.StatusSuspended {
		t.Fatalf("run: %+v, %v; want suspended", out, err)
	}
	h, err := rt.Continue(ctx, out.RunID, out.Suspension.Pending[0].Approve())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	recs, err := s.RunLog().Read(ctx, out.RunID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var stored strings.Builder
	for _, rec := range recs {
		b, err := runtime.MarshalEvent(rec)
		if err != nil {
			t.Fatal(err)
		}
		stored.Write(b)
	}
	if !strings.Contains(stored.String(), "TIMELINE-POINTS") || !strings.Contains(stored.String(), `"type":"run_completed"`) {
		t.Fatalf("the run log lost the timeline or the completion: %s", stored.String())
	}
	if strings.Contains(stored.String(), internalMarker) {
		t.Fatal("internal server data reached the run log")
	}
}

// logFollowedAcross: a run on runtime A, followed from B's store: the
// follower sees every event A's subscribers saw, in order.
func logFollowedAcross(t *testing.T, a, b runtime.Store) {
	rt := newRuntime(t, a, chartThenCancel,
		scripted.Call("chart", `{}`), scripted.Call("hold", `{"order_id":"A-2"}`), scripted.Reply("Done."))
	var mu sync.Mutex
	var subscribed []int64
	defer rt.Subscribe(func(e runtime.Event) {
		mu.Lock()
		defer mu.Unlock()
		subscribed = append(subscribed, e.Head().Seq)
	})()
	followed := make(chan []int64, 1)
	go func() {
		var seen []int64
		err := runtime.FollowRunLog(ctx, b.RunLog(), "r-across", 0, func(rec runtime.EventRecord) error {
			seen = append(seen, rec.Seq)
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		followed <- seen
	}()
	if _, err := rt.Run(ctx, "desk", input("chart and hold", ""), runtime.WithRunID("r-across")); err != nil {
		t.Fatal(err)
	}
	seen := <-followed
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || len(seen) != len(subscribed) {
		t.Fatalf("the follower saw %v; the run emitted %v", seen, subscribed)
	}
	for i := range seen {
		if seen[i] != int64(i+1) || subscribed[i] != seen[i] {
			t.Fatalf("the follower saw %v; the run emitted %v", seen, subscribed)
		}
	}
}

// ordersToolset declares orders.hold (which runs exec), orders.cancelOrder
// behind a confirmation, and orders.chart producing server data of each
// audience.
func ordersToolset(t *testing.T) []tools.ToolSpec {
	t.Helper()
	obj := json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}}}`)
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "orders", Tools: []contract.ToolDeclaration{
		{Name: "hold", Title: "Hold", Description: "Hold an order.", InputSchema: obj},
		{Name: "cancelOrder", Title: "Cancel order", Description: "Cancel an order.", InputSchema: obj,
			Confirmation: &tools.ConfirmationSpec{PromptTemplate: "Cancel order {{ .order_id }}?"}},
		{Name: "chart", Title: "Chart", Description: "Chart the orders.", InputSchema: obj, ServerData: []contract.ServerDataDeclaration{
			{Kind: "metrics.points", Audience: tools.AudienceTimeline},
			{Kind: "audit.evidence", Audience: tools.AudienceEvidence},
			{Kind: "composition.sidecar", Audience: tools.AudienceInternal},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// internalMarker is what orders.chart returns as internal server data.
const internalMarker = "INTERNAL-SIDECAR-7f3a"

// newRuntime returns a runtime on s running agent "desk" over the orders
// toolset with a model playing steps.
func newRuntime(t *testing.T, s runtime.Store, exec toolcall.Executor, steps ...scripted.Step) *runtime.Runtime {
	t.Helper()
	rt, err := runtime.New(runtime.WithStore(s), runtime.WithModel(model.ModelClassDefault, scripted.New(steps...)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "orders", Specs: ordersToolset(t), Executor: exec}); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "desk", Planner: planner.NewStandard(), Uses: []runtime.ToolsetUse{{Toolset: "orders"}}}); err != nil {
		t.Fatal(err)
	}
	return rt
}

func input(text, session string) runtime.RunInput {
	return runtime.RunInput{SessionID: session, Messages: []model.Message{model.UserMessage(text)}}
}

// concurrentSessionRuns: two runs of session "s", one per runtime, both
// load the session before either saves (each holds in orders.hold until
// both are there); one transcript is stored, the other run returns its
// output with a SessionConflictError.
func concurrentSessionRuns(t *testing.T, a, b runtime.Store) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	hold := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		arrived.Done()
		arrived.Wait()
		return &toolcall.Result{Result: json.RawMessage(`{"held":true}`)}, nil
	})
	rts := []*runtime.Runtime{
		newRuntime(t, a, hold, scripted.Call("hold", `{}`), scripted.Reply("answer A")),
		newRuntime(t, b, hold, scripted.Call("hold", `{}`), scripted.Reply("answer B")),
	}
	outs := make([]*runtime.RunOutput, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, rt := range rts {
		wg.Go(func() { outs[i], errs[i] = rt.Run(ctx, "desk", input("question "+string(rune('A'+i)), "s")) })
	}
	wg.Wait()
	winner, loser := 0, 1
	if errs[0] != nil {
		winner, loser = 1, 0
	}
	if errs[winner] != nil {
		t.Fatalf("both runs failed: %v; %v", errs[0], errs[1])
	}
	var conflict *runtime.SessionConflictError
	if !errors.As(errs[loser], &conflict) || !errors.Is(errs[loser], runtime.ErrSessionConflict) {
		t.Fatalf("the second run's error: %v, want a *SessionConflictError", errs[loser])
	}
	// Nothing the losing run produced is lost: its output comes back
	// beside the error, its messages in it.
	lost := outs[loser]
	if lost == nil || conflict.Output != lost || lost.Final == nil || lost.Final.Text != "answer "+string(rune('A'+loser)) ||
		!lost.SessionConflict || lost.SessionNotSaved == "" || len(lost.Messages) == 0 {
		t.Fatalf("the losing run's output: %+v", lost)
	}
	stored, err := a.Sessions().Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range stored.Messages {
		texts = append(texts, m.TextContent())
	}
	joined := strings.Join(texts, "|")
	want := "answer " + string(rune('A'+winner))
	if stored.Version != 1 || !strings.Contains(joined, want) || strings.Contains(joined, "answer "+string(rune('A'+loser))) {
		t.Fatalf("stored session (version %d): %s; want the winner's (%s) alone", stored.Version, joined, want)
	}
}

// continuedOnce: a run suspends at its confirmation on runtime A; Continue
// from A and from B at once: one continues it, the other fails wrapping
// ErrNotSuspended; the approved call runs once.
func continuedOnce(t *testing.T, a, b runtime.Store) {
	var runs atomic.Int64
	cancel := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		runs.Add(1)
		return &toolcall.Result{Result: json.RawMessage(`{"cancelled":true}`)}, nil
	})
	steps := []scripted.Step{scripted.Call("cancelOrder", `{"order_id":"A-1"}`), scripted.Reply("Order A-1 is cancelled.")}
	rtA := newRuntime(t, a, cancel, steps...)
	rtB := newRuntime(t, b, cancel, steps[1:]...) // B plays the model's part after the approval
	out, err := rtA.Run(ctx, "desk", input("Cancel A-1.", ""))
	if err != nil || out.Status != runtime.StatusSuspended {
		t.Fatalf("run: %+v, %v; want suspended", out, err)
	}
	listed, err := rtB.ListSuspended(ctx, runtime.SuspendedFilter{Agent: "desk"})
	if err != nil || len(listed) != 1 || listed[0].RunID != out.RunID || listed[0].Pending[0].Prompt != "Cancel order A-1?" {
		t.Fatalf("ListSuspended from B = %+v, %v", listed, err)
	}
	item := listed[0].Pending[0]
	results := make([]error, 2)
	answers := make([]string, 2)
	var wg sync.WaitGroup
	for i, rt := range []*runtime.Runtime{rtA, rtB} {
		wg.Go(func() {
			h, err := rt.Continue(ctx, out.RunID, item.Approve())
			if err != nil {
				results[i] = err
				return
			}
			done, err := h.Wait(ctx)
			if err != nil {
				results[i] = err
				return
			}
			if done.Final != nil {
				answers[i] = done.Final.Text
			}
		})
	}
	wg.Wait()
	won := 0
	for i, err := range results {
		switch {
		case err == nil && answers[i] == "Order A-1 is cancelled.":
			won++
		case err == nil:
			t.Errorf("continuation %d answered %q", i, answers[i])
		case !errors.Is(err, runtime.ErrNotSuspended):
			t.Errorf("continuation %d: %v, want ErrNotSuspended", i, err)
		}
	}
	if won != 1 || runs.Load() != 1 {
		t.Fatalf("%d continuations completed and the approved call ran %d times; want 1 and 1", won, runs.Load())
	}
	if left, _ := rtA.ListSuspended(ctx, runtime.SuspendedFilter{}); len(left) != 0 {
		t.Fatalf("still listed after its continuation: %+v", left)
	}
}

// noInternalData: a run whose tool produced timeline, evidence and internal
// server data suspends; the stored checkpoint holds the first two, never
// the internal one.
func noInternalData(t *testing.T, s runtime.Store) {
	rt := newRuntime(t, s, chartThenCancel,
		scripted.Calls(scripted.ToolCallSpec{Name: "chart", Payload: `{}`}, scripted.ToolCallSpec{Name: "cancelOrder", Payload: `{"order_id":"A-1"}`}),
		scripted.Reply("Done."))
	out, err := rt.Run(ctx, "desk", input("chart, then cancel A-1", ""))
	if err != nil || out.Status != runtime.StatusSuspended {
		t.Fatalf("run: %+v, %v; want suspended", out, err)
	}
	c, err := s.Suspensions().Take(ctx, out.RunID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	stored, err := runtime.MarshalCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(stored), "TIMELINE-POINTS") || !strings.Contains(string(stored), "EVIDENCE-ROWS") {
		t.Fatalf("the checkpoint lost the timeline or the evidence: %s", stored)
	}
	if strings.Contains(string(stored), internalMarker) {
		t.Fatal("internal server data was stored in the checkpoint")
	}
}
