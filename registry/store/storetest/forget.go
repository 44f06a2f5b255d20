package storetest

import (
	"encoding/json"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// testForgetSettled: results and payloads of settled calls are forgotten
// by kind, incrementally, leaving the rest of each record — the digest a
// retry is matched against, the outcome, a failure's kind and recovery —
// as it was; unsettled calls keep everything; purging still works.
func testForgetSettled(h *harness) {
	r := registration("weather", "1", "fpA")
	reg := h.register(r, "p1")
	// A payload that names the fields around it, as text and as keys.
	tricky := json.RawMessage(`{"note":",\"digest\":\"x\",\"payload\":","digest":"fake","payload":{"deadline":1}}`)
	for _, id := range []string{"c1", "c2", "c3", "c4"} {
		c := call(id, r)
		c.Payload = tricky
		h.accept(c, "")
	}
	for _, s := range []store.Settlement{
		{CallID: "c1", Outcome: store.OutcomeOK, Result: json.RawMessage(`{"t":1}`)},
		{CallID: "c2", Outcome: store.OutcomeToolError, Error: "the tool failed", ErrorKind: "unknown_city", ErrorRecovery: "correct_call"},
		{CallID: "c3", Outcome: store.OutcomeOK, Result: json.RawMessage(`{"t":3}`)},
	} {
		h.advance(time.Second)
		h.publish(s.CallID, reg.Lease.ID)
		s.LeaseID = reg.Lease.ID
		h.settle(s)
	}
	before := map[string]store.Call{}
	for _, id := range []string{"c1", "c2", "c3", "c4"} {
		before[id] = h.get(id)
	}
	forget := func(results, payloads time.Time, want int) {
		h.t.Helper()
		if n, err := h.s.ForgetSettled(h.ctx, results, payloads); err != nil || n != want {
			h.t.Fatalf("ForgetSettled(%v, %v) = %d, %v; want %d", results, payloads, n, err, want)
		}
	}
	// expect says what a record must be: before's, with what is forgotten.
	expect := func(id string, result, payload bool) {
		h.t.Helper()
		want := before[id]
		if result {
			want.Result, want.Error, want.ResultForgotten = nil, "", true
		}
		if payload {
			want.Payload, want.PayloadForgotten = nil, true
		}
		h.wantEqual("record "+id, normCall(h.get(id)), normCall(want))
	}
	forget(time.Time{}, time.Time{}, 0)
	// c1 and c2 settled before start+2.5s; c3 at start+3s.
	forget(start.Add(2500*time.Millisecond), time.Time{}, 2)
	expect("c1", true, false)
	expect("c2", true, false)
	expect("c3", false, false)
	// A failure's kind and recovery classify it and hold none of the call's
	// data: they stay with its outcome.
	if c := h.get("c2"); c.Error != "" || c.ErrorKind != "unknown_city" || c.ErrorRecovery != "correct_call" {
		h.t.Fatalf("c2 after its result was forgotten: error %q, kind %q, recovery %q; want no error, unknown_city, correct_call", c.Error, c.ErrorKind, c.ErrorRecovery)
	}
	forget(start.Add(2500*time.Millisecond), time.Time{}, 0) // incremental: nothing new
	forget(time.Time{}, start.Add(time.Hour), 3)
	expect("c1", true, true)
	expect("c3", false, true)
	expect("c4", false, false) // unsettled: nothing forgotten
	forget(start.Add(time.Hour), start.Add(time.Hour), 1)
	expect("c3", true, true)
	if c := h.get("c1"); c.Digest != before["c1"].Digest || c.Outcome != store.OutcomeOK {
		h.t.Fatalf("c1 lost its digest or outcome: %+v", c)
	}
	if n, err := h.s.PurgeSettled(h.ctx, start.Add(time.Hour)); err != nil || n != 3 {
		h.t.Fatalf("PurgeSettled after forgetting = %d, %v; want 3", n, err)
	}
	// Calls settled later are forgotten by the next pass.
	h.advance(time.Second)
	h.publish("c4", reg.Lease.ID)
	h.settle(store.Settlement{CallID: "c4", LeaseID: reg.Lease.ID, Outcome: store.OutcomeOK, Result: json.RawMessage(`{"t":4}`)})
	forget(start.Add(time.Hour), start.Add(time.Hour), 1)
	if c := h.get("c4"); !c.ResultForgotten || !c.PayloadForgotten || c.Result != nil || c.Payload != nil {
		h.t.Fatalf("c4 after the next pass: %+v", c)
	}
}
