package server_test

// One test per row of the call-state table in docs/registry.md. Each test
// names its row; the table and these tests change together.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// Row 1: no record × unknown toolset → unknown_toolset, nothing recorded.
func TestCallStateRow01UnknownToolset(t *testing.T) {
	r, c, ts, _ := setup(t, registrytest.Options{}, registrytest.NewCounter(), 8)
	_, err := registrytest.Call(c, "nope", "echo", ts.Token, "r1", `{"text":"x"}`, time.Second)
	wantName(t, err, registry.ErrUnknownToolset)
	noRecord(t, r, "r1")
}

// Row 2: no record × unknown tool → unknown_tool naming the toolset's tools.
func TestCallStateRow02UnknownTool(t *testing.T) {
	r, c, ts, _ := setup(t, registrytest.Options{}, registrytest.NewCounter(), 8)
	_, err := registrytest.Call(c, "echo", "shout", ts.Token, "r2", `{"text":"x"}`, time.Second)
	wantName(t, err, registry.ErrUnknownTool)
	if !strings.Contains(err.Error(), "add, echo, slow") {
		t.Fatalf("the error does not list the tools: %v", err)
	}
	noRecord(t, r, "r2")
}

// Row 3: no record × a token that is not the active registration's →
// admission_conflict, nothing recorded.
func TestCallStateRow03StaleToken(t *testing.T) {
	r, c, _, _ := setup(t, registrytest.Options{}, registrytest.NewCounter(), 8)
	_, err := registrytest.Call(c, "echo", "echo", "qrt1_stale", "r3", `{"text":"x"}`, time.Second)
	wantName(t, err, registry.ErrAdmissionConflict)
	noRecord(t, r, "r3")
}

// Row 4: no record × invalid payload → validation_error listing every
// violation, nothing recorded, nothing run.
func TestCallStateRow04InvalidPayload(t *testing.T) {
	exec := registrytest.NewCounter()
	r, c, ts, _ := setup(t, registrytest.Options{}, exec, 8)
	_, err := registrytest.Call(c, "echo", "add", ts.Token, "r4", `{"a":"one","extra":1}`, time.Second)
	wantName(t, err, registry.ErrValidation)
	for _, want := range []string{"extra", "b"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q: %v", want, err)
		}
	}
	_, err = registrytest.Call(c, "echo", "add", ts.Token, "r4b", `{"a":"one","b":2}`, time.Second)
	wantName(t, err, registry.ErrValidation)
	noRecord(t, r, "r4")
	if exec.Runs("r4")+exec.Runs("r4b") != 0 {
		t.Fatal("an invalid payload ran")
	}
}

// Row 5: no record × the toolset's queue is full → overloaded, nothing
// recorded; a retry with the same token and call id is admitted later.
func TestCallStateRow05Overloaded(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{MaxQueue: 1})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	first := async(c, "echo", "echo", p.Lease.Token, "q1", `{"text":"a"}`, 5*time.Second)
	eventually(t, "q1 accepted", func() bool { _, err := r.Store.GetCall(context.Background(), "q1"); return err == nil })
	_, err := registrytest.Call(c, "echo", "echo", p.Lease.Token, "q2", `{"text":"b"}`, 5*time.Second)
	wantName(t, err, registry.ErrOverloaded)
	noRecord(t, r, "q2")
	p.Connect(t)
	f := <-p.Frames
	if _, err := p.Post(*f.CallID, `{"text":"a"}`, ""); err != nil {
		t.Fatal(err)
	}
	if a := <-first; a.err != nil {
		t.Fatal(a.err)
	}
	retry := async(c, "echo", "echo", p.Lease.Token, "q2", `{"text":"b"}`, 5*time.Second)
	f = <-p.Frames
	if _, err := p.Post(*f.CallID, `{"text":"b"}`, ""); err != nil {
		t.Fatal(err)
	}
	if a := <-retry; a.err != nil || a.out.Outcome != "ok" {
		t.Fatalf("retry after overload: %+v", a)
	}
}

// Row 6: no record × a provider with room → accepted and published in one
// write, the frame written, the outcome returned.
func TestCallStateRow06PublishedAtOnce(t *testing.T) {
	gate := registrytest.NewGate()
	r, c, ts, _ := setup(t, registrytest.Options{}, gate, 8)
	done := async(c, "echo", "echo", ts.Token, "r6", `{"text":"x"}`, 5*time.Second)
	<-gate.Started()
	rec := wantRecord(t, r, "r6", store.CallPublished, "")
	if rec.LeaseID == "" || rec.PublishedAt.IsZero() {
		t.Fatalf("published record without its lease: %+v", rec)
	}
	gate.Open()
	if a := <-done; a.err != nil || a.out.Outcome != "ok" {
		t.Fatalf("%+v", a)
	}
	wantRecord(t, r, "r6", store.CallSettled, store.OutcomeOK)
}

// Rows 7 and 8: no record × no provider with room → accepted and queued;
// accepted × a provider gets room → published, run, settled.
func TestCallStateRow07And08QueuedThenPublished(t *testing.T) {
	gate := registrytest.NewGate()
	r, c, ts, _ := setup(t, registrytest.Options{}, gate, 1)
	a := async(c, "echo", "echo", ts.Token, "r7a", `{"text":"a"}`, 5*time.Second)
	<-gate.Started()
	b := async(c, "echo", "echo", ts.Token, "r7b", `{"text":"b"}`, 5*time.Second)
	eventually(t, "r7b accepted", func() bool {
		rec, err := r.Store.GetCall(context.Background(), "r7b")
		return err == nil && rec.State == store.CallAccepted
	})
	gate.Open()
	for _, ch := range []<-chan answer{a, b} {
		if ans := <-ch; ans.err != nil || ans.out.Outcome != "ok" {
			t.Fatalf("%+v", ans)
		}
	}
	wantRecord(t, r, "r7b", store.CallSettled, store.OutcomeOK)
	if gate.Runs("r7a") != 1 || gate.Runs("r7b") != 1 {
		t.Fatal("a call ran other than once")
	}
}

// Row 9: accepted × the registration is replaced before publication →
// call_not_admitted; the replaced provider's in-hand call still settles;
// a new call with the old token is an admission_conflict (row 3).
func TestCallStateRow09ReplacedBeforePublication(t *testing.T) {
	gate := registrytest.NewGate()
	r, c, ts, stopOld := setup(t, registrytest.Options{}, gate, 1)
	inHand := async(c, "echo", "echo", ts.Token, "r9a", `{"text":"a"}`, 10*time.Second)
	<-gate.Started()
	queued := async(c, "echo", "echo", ts.Token, "r9b", `{"text":"b"}`, 10*time.Second)
	eventually(t, "r9b accepted", func() bool {
		rec, err := r.Store.GetCall(context.Background(), "r9b")
		return err == nil && rec.State == store.CallAccepted
	})
	next := registrytest.NewCounter()
	registrytest.Serve(t, c, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r2"}, next)
	eventually(t, "revision r2 pending", func() bool {
		cat, err := r.Store.Catalog(context.Background())
		if err != nil {
			return false
		}
		for _, l := range cat.Leases {
			if l.State == store.LeasePending {
				return true
			}
		}
		return false
	})
	// The old provider drains: its call in hand finishes, then it releases.
	gate.Open()
	if a := <-inHand; a.err != nil || a.out.Outcome != "ok" {
		t.Fatalf("in-hand call: %+v", a)
	}
	a := <-queued
	wantName(t, a.err, registry.ErrCallNotAdmitted)
	wantRecord(t, r, "r9b", store.CallSettled, store.OutcomeCallNotAdmitted)
	if err := stopOld(); !errors.Is(err, registry.ErrReplaced) {
		t.Fatalf("the replaced provider's Serve returned %v, want ErrReplaced", err)
	}
	_, err := registrytest.Call(c, "echo", "echo", ts.Token, "r9c", `{"text":"c"}`, time.Second)
	wantName(t, err, registry.ErrAdmissionConflict)
	fresh := registrytest.WaitProviders(t, c, "echo", 1)
	if out, err := registrytest.Call(c, "echo", "echo", fresh.Token, "r9d", `{"text":"d"}`, 5*time.Second); err != nil || out.Outcome != "ok" || next.Runs("r9d") != 1 {
		t.Fatalf("call to the new revision: %v %v", out, err)
	}
	if gate.Runs("r9b")+next.Runs("r9b") != 0 {
		t.Fatal("the call not admitted ran")
	}
}

// Row 10: accepted × its deadline, with no healthy provider →
// call_not_admitted.
func TestCallStateRow10DeadlineWithoutProvider(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	_, err := registrytest.Call(c, "echo", "echo", p.Lease.Token, "r10", `{"text":"x"}`, 200*time.Millisecond)
	wantName(t, err, registry.ErrCallNotAdmitted)
	wantRecord(t, r, "r10", store.CallSettled, store.OutcomeCallNotAdmitted)
	// Connecting now hands it nothing.
	p.Connect(t)
	select {
	case f := <-p.Frames:
		t.Fatalf("a call not admitted was published: %s", *f.CallID)
	case <-time.After(100 * time.Millisecond):
	}
}

// Row 11: accepted × the toolset is unregistered → call_not_admitted.
func TestCallStateRow11Unregistered(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	done := async(c, "echo", "echo", p.Lease.Token, "r11", `{"text":"x"}`, 10*time.Second)
	eventually(t, "r11 accepted", func() bool { _, err := r.Store.GetCall(context.Background(), "r11"); return err == nil })
	if err := c.Unregister(context.Background(), unregister("echo")); err != nil {
		t.Fatal(err)
	}
	wantName(t, (<-done).err, registry.ErrCallNotAdmitted)
	wantRecord(t, r, "r11", store.CallSettled, store.OutcomeCallNotAdmitted)
}

// Row 12: accepted × the registry restarts → still accepted, routed again
// after the restart, run once.
func TestCallStateRow12AcceptedSurvivesRestart(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{Addr: "127.0.0.1:0"})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 4, false)
	done := async(c, "echo", "echo", p.Lease.Token, "r12", `{"text":"x"}`, 20*time.Second)
	eventually(t, "r12 accepted", func() bool { _, err := r.Store.GetCall(context.Background(), "r12"); return err == nil })
	r = r.Restart(t)
	<-done // the consumer's connection broke with the restart
	wantRecord(t, r, "r12", store.CallAccepted, "")
	exec := registrytest.NewCounter()
	registrytest.Serve(t, r.Client(t, ""), registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, exec)
	out, err := registrytest.Call(r.Client(t, ""), "echo", "echo", p.Lease.Token, "r12", `{"text":"x"}`, 10*time.Second)
	if err != nil || out.Outcome != "ok" {
		t.Fatalf("retry after restart: %v %v", out, err)
	}
	if exec.Runs("r12") != 1 {
		t.Fatalf("ran %d times", exec.Runs("r12"))
	}
}

// Row 13: published × the provider posts → ok with its result, or
// tool_error with its message.
func TestCallStateRow13ProviderPosts(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 4, true)
	ok := async(c, "echo", "echo", p.Lease.Token, "r13a", `{"text":"x"}`, 5*time.Second)
	bad := async(c, "echo", "echo", p.Lease.Token, "r13b", `{"text":"y"}`, 5*time.Second)
	for range 2 {
		f := <-p.Frames
		var err error
		if *f.CallID == "r13a" {
			_, err = p.Post("r13a", `{"text":"x"}`, "")
		} else {
			_, err = p.Post("r13b", "", "disk full")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if a := <-ok; a.err != nil || a.out.Outcome != "ok" {
		t.Fatalf("%+v", a)
	}
	if a := <-bad; a.err != nil || a.out.Outcome != "tool_error" || a.out.Error == nil || *a.out.Error != "disk full" {
		t.Fatalf("%+v", a)
	}
	wantRecord(t, r, "r13b", store.CallSettled, store.OutcomeToolError)
}

// Row 14: published × the provider's lease ends (it died: no renewal) →
// outcome_unknown, never re-run elsewhere.
func TestCallStateRow14ProviderDies(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{LeaseTTL: 300 * time.Millisecond})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 4, true)
	done := async(c, "echo", "echo", p.Lease.Token, "r14", `{"text":"x"}`, 10*time.Second)
	<-p.Frames
	p.Disconnect()
	wantName(t, (<-done).err, registry.ErrOutcomeUnknown)
	wantRecord(t, r, "r14", store.CallSettled, store.OutcomeUnknown)
	// A late post from the dead provider changes nothing.
	if _, err := p.Post("r14", `{"text":"x"}`, ""); err != nil && registry.ErrorName(err) != registry.ErrWrongLease {
		t.Fatalf("late post: %v", err)
	}
	wantRecord(t, r, "r14", store.CallSettled, store.OutcomeUnknown)
}

// Row 16: published × its deadline → the consumer reads outcome_unknown,
// the record stays published; after the grace it settles outcome_unknown.
func TestCallStateRow16PublishedPastDeadline(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{PublishedGrace: 300 * time.Millisecond, LeaseTTL: 30 * time.Second})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 4, true)
	done := async(c, "echo", "echo", p.Lease.Token, "r16", `{"text":"x"}`, 200*time.Millisecond)
	<-p.Frames
	wantName(t, (<-done).err, registry.ErrOutcomeUnknown)
	wantRecord(t, r, "r16", store.CallPublished, "")
	eventually(t, "r16 settled after the grace", func() bool {
		rec, err := r.Store.GetCall(context.Background(), "r16")
		return err == nil && rec.Outcome == store.OutcomeUnknown
	})
}

// Row 17: published × the registry restarts → still published; the
// provider posts to the restarted registry and the retry reads the result.
func TestCallStateRow17PublishedSurvivesRestart(t *testing.T) {
	gate := registrytest.NewGate()
	r, c, ts, _ := setup(t, registrytest.Options{Addr: "127.0.0.1:0"}, gate, 4)
	done := async(c, "echo", "echo", ts.Token, "r17", `{"text":"x"}`, 20*time.Second)
	<-gate.Started()
	r = r.Restart(t)
	<-done
	wantRecord(t, r, "r17", store.CallPublished, "")
	gate.Open()
	out, err := registrytest.Call(r.Client(t, ""), "echo", "echo", ts.Token, "r17", `{"text":"x"}`, 10*time.Second)
	if err != nil || out.Outcome != "ok" || gate.Runs("r17") != 1 {
		t.Fatalf("retry after restart: %v %v, runs %d", out, err, gate.Runs("r17"))
	}
}

// Row 18: published × a result posted by another lease → wrong_lease, the
// call unchanged.
func TestCallStateRow18WrongLease(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 4, true)
	other := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 4, false)
	done := async(c, "echo", "echo", p.Lease.Token, "r18", `{"text":"x"}`, 5*time.Second)
	<-p.Frames
	_, err := other.Post("r18", `{"text":"forged"}`, "")
	wantName(t, err, registry.ErrWrongLease)
	wantRecord(t, r, "r18", store.CallPublished, "")
	if _, err := p.Post("r18", `{"text":"x"}`, ""); err != nil {
		t.Fatal(err)
	}
	if a := <-done; a.err != nil || a.out.Outcome != "ok" {
		t.Fatalf("%+v", a)
	}
}

// Row 19: settled × a retry with the same call id, tool and payload → the
// recorded outcome; nothing runs again.
func TestCallStateRow19RetryReadsTheOutcome(t *testing.T) {
	exec := registrytest.NewCounter()
	_, c, ts, _ := setup(t, registrytest.Options{}, exec, 8)
	first, err := registrytest.Call(c, "echo", "echo", ts.Token, "r19", `{"text":"x"}`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := registrytest.Call(c, "echo", "echo", ts.Token, "r19", `{ "text" : "x" }`, 5*time.Second)
		if err != nil || again.Outcome != first.Outcome {
			t.Fatalf("%v %v", again, err)
		}
	}
	if exec.Runs("r19") != 1 {
		t.Fatalf("ran %d times", exec.Runs("r19"))
	}
}

// Row 20: any record × the call id reused for another payload or tool →
// call_id_conflict.
func TestCallStateRow20CallIDConflict(t *testing.T) {
	exec := registrytest.NewCounter()
	_, c, ts, _ := setup(t, registrytest.Options{}, exec, 8)
	if _, err := registrytest.Call(c, "echo", "echo", ts.Token, "r20", `{"text":"x"}`, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	_, err := registrytest.Call(c, "echo", "echo", ts.Token, "r20", `{"text":"y"}`, 5*time.Second)
	wantName(t, err, registry.ErrCallIDConflict)
	_, err = registrytest.Call(c, "echo", "add", ts.Token, "r20", `{"a":1,"b":2}`, 5*time.Second)
	wantName(t, err, registry.ErrCallIDConflict)
	if exec.Runs("r20") != 1 {
		t.Fatal("a conflicting call ran")
	}
}

// Row 21: settled × the provider posts again → the first outcome stays.
func TestCallStateRow21FirstOutcomeWins(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 4, true)
	done := async(c, "echo", "echo", p.Lease.Token, "r21", `{"text":"x"}`, 5*time.Second)
	<-p.Frames
	if _, err := p.Post("r21", `{"text":"x"}`, ""); err != nil {
		t.Fatal(err)
	}
	rec, err := p.Post("r21", "", "changed my mind")
	if err != nil || rec.Outcome == nil || *rec.Outcome != "ok" {
		t.Fatalf("second post: %+v %v", rec, err)
	}
	<-done
	wantRecord(t, r, "r21", store.CallSettled, store.OutcomeOK)
}

// Row 22: settled × its retention passed → the record is purged and the
// same call id is a new call.
func TestCallStateRow22Retention(t *testing.T) {
	exec := registrytest.NewCounter()
	r, c, ts, _ := setup(t, registrytest.Options{}, exec, 8)
	if _, err := registrytest.Call(c, "echo", "echo", ts.Token, "r22", `{"text":"x"}`, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	n, err := r.Store.PurgeSettled(context.Background(), time.Now().Add(time.Second))
	if err != nil || n != 1 {
		t.Fatalf("purged %d: %v", n, err)
	}
	noRecord(t, r, "r22")
	if _, err := registrytest.Call(c, "echo", "echo", ts.Token, "r22", `{"text":"x"}`, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if exec.Runs("r22") != 2 {
		t.Fatalf("ran %d times", exec.Runs("r22"))
	}
}

// Row 5, continued: a retry after overloaded keeps its token; when the
// registration was replaced meanwhile, the retry is an admission_conflict
// (row 3) and nothing runs.
func TestCallStateRow05RetryAfterReplacement(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{MaxQueue: 1})
	c := r.Client(t, "")
	old := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	queued := async(c, "echo", "echo", old.Lease.Token, "o1", `{"text":"a"}`, 5*time.Second)
	eventually(t, "o1 accepted", func() bool { _, err := r.Store.GetCall(context.Background(), "o1"); return err == nil })
	_, err := registrytest.Call(c, "echo", "echo", old.Lease.Token, "o2", `{"text":"b"}`, 5*time.Second)
	wantName(t, err, registry.ErrOverloaded)

	next := registrytest.Register(t, c, registrytest.Echo("echo"), "r2", 1, true)
	if err := old.C.Release(context.Background(), &gen.ReleasePayload{LeaseID: old.Lease.LeaseID}); err != nil {
		t.Fatal(err)
	}
	wantName(t, (<-queued).err, registry.ErrCallNotAdmitted)
	_, err = registrytest.Call(c, "echo", "echo", old.Lease.Token, "o2", `{"text":"b"}`, 5*time.Second)
	wantName(t, err, registry.ErrAdmissionConflict)
	noRecord(t, r, "o2")
	select {
	case f := <-next.Frames:
		t.Fatalf("the new revision received %s", *f.CallID)
	case <-time.After(50 * time.Millisecond):
	}
}

// Row 23: settled × its result retention passes (ResultRetention shorter
// than Retention) → the result and error message are forgotten; a retry is
// still matched and runs nothing, reading result_expired; the record says
// result_expired.
func TestCallStateRow23ResultRetention(t *testing.T) {
	exec := registrytest.NewCounter()
	r, c, ts, _ := setup(t, registrytest.Options{ResultRetention: 50 * time.Millisecond}, exec, 8)
	first, err := registrytest.Call(c, "echo", "echo", ts.Token, "r23", `{"text":"x"}`, 5*time.Second)
	if err != nil || first.Outcome != "ok" {
		t.Fatalf("%+v %v", first, err)
	}
	waitForgotten(t, r, "r23", func(c store.Call) bool { return c.ResultForgotten })
	_, err = registrytest.Call(c, "echo", "echo", ts.Token, "r23", `{"text":"x"}`, 5*time.Second)
	wantName(t, err, registry.ErrResultExpired)
	_, err = registrytest.Call(c, "echo", "echo", ts.Token, "r23", `{"text":"y"}`, 5*time.Second)
	wantName(t, err, registry.ErrCallIDConflict)
	rec, err := c.GetCall(context.Background(), &gen.GetCallPayload{CallID: "r23"})
	if err != nil || rec.Result != nil || rec.ResultExpired == nil || !*rec.ResultExpired || rec.Outcome == nil || *rec.Outcome != "ok" {
		t.Fatalf("record %+v %v", rec, err)
	}
	if exec.Runs("r23") != 1 {
		t.Fatalf("ran %d times", exec.Runs("r23"))
	}
}

// ForgetPayloads: a settled call keeps its payload's digest only, and a
// retry is still matched by it.
func TestForgetPayloadsKeepsOnlyTheDigest(t *testing.T) {
	exec := registrytest.NewCounter()
	r, c, ts, _ := setup(t, registrytest.Options{ForgetPayloads: true}, exec, 8)
	if _, err := registrytest.Call(c, "echo", "echo", ts.Token, "fp1", `{"text":"a secret"}`, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	rec := waitForgotten(t, r, "fp1", func(c store.Call) bool { return c.PayloadForgotten })
	if rec.Payload != nil || rec.Digest == "" || string(rec.Result) != `{"text":"a secret"}` {
		t.Fatalf("record after forgetting its payload: %+v", rec)
	}
	again, err := registrytest.Call(c, "echo", "echo", ts.Token, "fp1", `{"text":"a secret"}`, 5*time.Second)
	if err != nil || again.Outcome != "ok" {
		t.Fatalf("retry: %+v %v", again, err)
	}
	_, err = registrytest.Call(c, "echo", "echo", ts.Token, "fp1", `{"text":"another"}`, 5*time.Second)
	wantName(t, err, registry.ErrCallIDConflict)
	if exec.Runs("fp1") != 1 {
		t.Fatalf("ran %d times", exec.Runs("fp1"))
	}
}

// waitForgotten waits for the maintenance pass that forgets what done
// reports on call id's record, and returns the record.
func waitForgotten(t *testing.T, r *registrytest.Registry, id string, done func(store.Call) bool) store.Call {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := r.Store.GetCall(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if done(c) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("call %s never forgotten: %+v", id, c)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
