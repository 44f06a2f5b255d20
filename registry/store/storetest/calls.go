package storetest

import (
	"encoding/json"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

func testAcceptIdempotent(h *harness) {
	r := registration("weather", "1", "fpA")
	a := h.register(r, "p1")
	in := call("c1", r)
	rec := h.accept(in, "")
	want := in
	want.State, want.AcceptedAt = store.CallAccepted, h.now()
	h.wantEqual("accepted record", normCall(rec), normCall(want))
	h.advance(time.Second)
	again, created, err := h.s.AcceptCall(h.ctx, in, a.Lease.ID)
	if err != nil || created {
		h.t.Fatalf("AcceptCall again = created %v, %v; want the record", created, err)
	}
	h.wantEqual("record accepted again", normCall(again), normCall(rec))
	for _, change := range []func(*store.Call){
		func(c *store.Call) { c.Digest = "sha256:other" },
		func(c *store.Call) { c.Tool = "sum" },
		func(c *store.Call) { c.Toolset = "maps" },
	} {
		other := in
		change(&other)
		_, _, err := h.s.AcceptCall(h.ctx, other, "")
		h.wantErr("AcceptCall(same id, another call)", err, store.ErrCallIDConflict)
	}
	h.settle(store.Settlement{CallID: "c1", Outcome: store.OutcomeCallNotAdmitted, Error: "test"})
	settled, created, err := h.s.AcceptCall(h.ctx, in, "")
	if err != nil || created {
		h.t.Fatalf("AcceptCall(settled call) = created %v, %v; want the record", created, err)
	}
	h.wantCall(settled, "c1", store.CallSettled, store.OutcomeCallNotAdmitted, "")

	// A caller's AcceptedAt is kept.
	early := call("c2", r)
	early.AcceptedAt = start.Add(-time.Hour)
	h.wantTime("caller's AcceptedAt", h.accept(early, "").AcceptedAt, early.AcceptedAt)
}

func testAdmissionConflict(h *harness) {
	v1, v2 := registration("weather", "1", "fpA"), registration("weather", "2", "fpB")
	a := h.register(v1, "p1")
	h.register(v2, "p2")
	for _, c := range []store.Call{call("pending-token", v2), call("bogus-token", registration("weather", "9", "fpZ"))} {
		_, _, err := h.s.AcceptCall(h.ctx, c, "")
		h.wantErr("AcceptCall("+c.ID+")", err, store.ErrAdmissionConflict)
		_, err = h.s.GetCall(h.ctx, c.ID)
		h.wantErr("GetCall(refused call)", err, store.ErrUnknownCall)
	}
	_, _, err := h.s.AcceptCall(h.ctx, call("c1", registration("nope", "1", "fpA")), "")
	h.wantErr("AcceptCall(unknown toolset)", err, store.ErrUnknownToolset)
	_, err = h.s.GetCall(h.ctx, "c1")
	h.wantErr("GetCall(refused call)", err, store.ErrUnknownCall)
	h.release(a.Lease.ID) // v2 activates
	_, _, err = h.s.AcceptCall(h.ctx, call("c2", v1), "")
	h.wantErr("AcceptCall(replaced token)", err, store.ErrAdmissionConflict)
	h.accept(call("c3", v2), "")
}

func testAssignTo(h *harness) {
	v1, v2, other := registration("weather", "1", "fpA"), registration("weather", "2", "fpB"), registration("maps", "1", "fpA")
	short := input(v1, "short")
	short.TTL = time.Second
	e := h.registerInput(short)
	a, d := h.register(v1, "p1"), h.register(v1, "p2")
	o := h.register(other, "p3")
	h.advance(2 * time.Second) // e is past its expiry
	rec := h.accept(call("c1", v1), a.Lease.ID)
	h.wantCall(rec, "c1", store.CallPublished, "", a.Lease.ID)
	h.wantTime("published at", rec.PublishedAt, h.now())
	h.wantStored("c1", store.CallPublished, "", a.Lease.ID)
	if _, err := h.s.Drain(h.ctx, d.Lease.ID); err != nil {
		h.t.Fatalf("Drain: %v", err)
	}
	for id, lease := range map[string]string{"c2": d.Lease.ID, "c3": "lease_unknown", "c4": o.Lease.ID, "c5": e.Lease.ID} {
		rec := h.accept(call(id, v1), lease)
		h.wantCall(rec, id, store.CallAccepted, "", "")
		if !rec.PublishedAt.IsZero() {
			h.t.Fatalf("accepted call %s has PublishedAt %v", id, rec.PublishedAt)
		}
	}
	p := h.register(v2, "p4") // pending: not on the call's registration
	h.wantCall(h.accept(call("c6", v1), p.Lease.ID), "c6", store.CallAccepted, "", "")
}

func testPublish(h *harness) {
	r, other := registration("weather", "1", "fpA"), registration("maps", "1", "fpA")
	a, b := h.register(r, "p1"), h.register(r, "p2")
	o := h.register(other, "p3")
	h.accept(call("c1", r), "")
	h.advance(time.Second)
	rec, published := h.publishFlag("c1", a.Lease.ID)
	h.wantCall(rec, "c1", store.CallPublished, "", a.Lease.ID)
	h.wantTime("published at", rec.PublishedAt, h.now())
	if !published {
		h.t.Fatal("PublishCall(c1) published it but says it did not")
	}
	// Published once: neither another lease nor the same one publishes it
	// again (a caller writes the frame only when published is true).
	for _, lease := range []string{b.Lease.ID, a.Lease.ID} {
		again, published := h.publishFlag("c1", lease)
		h.wantCall(again, "c1", store.CallPublished, "", a.Lease.ID)
		if published {
			h.t.Fatalf("PublishCall(c1, %s) published a published call again", lease)
		}
	}
	h.accept(call("c2", r), "")
	h.release(b.Lease.ID)
	for _, lease := range []string{"lease_unknown", b.Lease.ID, o.Lease.ID} {
		_, _, err := h.s.PublishCall(h.ctx, "c2", lease)
		h.wantErr("PublishCall(c2, "+lease+")", err, store.ErrLeaseGone)
	}
	h.wantStored("c2", store.CallAccepted, "", "")
	_, _, err := h.s.PublishCall(h.ctx, "nope", a.Lease.ID)
	h.wantErr("PublishCall(unknown call)", err, store.ErrUnknownCall)
	h.settle(store.Settlement{CallID: "c1", LeaseID: a.Lease.ID, Outcome: store.OutcomeOK, Result: json.RawMessage(`1`)})
	h.wantCall(h.publish("c1", a.Lease.ID), "c1", store.CallSettled, store.OutcomeOK, a.Lease.ID)
}

func testPublishAfterReplacement(h *harness) {
	v1, v2 := registration("weather", "1", "fpA"), registration("weather", "2", "fpB")
	a := h.register(v1, "p1")
	h.accept(call("c1", v1), "")
	b := h.register(v2, "p2")
	_, _, err := h.s.PublishCall(h.ctx, "c1", a.Lease.ID)
	h.wantErr("PublishCall(draining lease)", err, store.ErrLeaseGone)
	h.release(a.Lease.ID)
	rec := h.publish("c1", b.Lease.ID)
	h.wantCall(rec, "c1", store.CallSettled, store.OutcomeCallNotAdmitted, "")
	h.wantStored("c1", store.CallSettled, store.OutcomeCallNotAdmitted, "")
}

func testSettleRules(h *harness) {
	r := registration("weather", "1", "fpA")
	a, b := h.register(r, "p1"), h.register(r, "p2")
	h.accept(call("c1", r), a.Lease.ID)
	h.accept(call("c2", r), "")
	h.accept(call("c3", r), a.Lease.ID)
	h.accept(call("c4", r), a.Lease.ID)
	h.accept(call("c5", r), b.Lease.ID)
	h.advance(time.Second)

	_, err := h.s.SettleCall(h.ctx, store.Settlement{CallID: "c1", LeaseID: b.Lease.ID, Outcome: store.OutcomeOK})
	h.wantErr("SettleCall(another lease)", err, store.ErrWrongLease)
	h.wantStored("c1", store.CallPublished, "", a.Lease.ID)
	ok := h.settle(store.Settlement{CallID: "c1", LeaseID: a.Lease.ID, Outcome: store.OutcomeOK, Result: json.RawMessage(`{"echo":"c1"}`)})
	h.wantCall(ok, "c1", store.CallSettled, store.OutcomeOK, a.Lease.ID)
	h.wantTime("settled at", ok.SettledAt, h.now())
	h.wantEqual("result", string(normJSON(ok.Result)), `{"echo":"c1"}`)
	for _, st := range []store.Settlement{
		{CallID: "c1", LeaseID: a.Lease.ID, Outcome: store.OutcomeToolError, Error: "late"},
		{CallID: "c1", LeaseID: b.Lease.ID, Outcome: store.OutcomeOK},
		{CallID: "c1", Outcome: store.OutcomeUnknown},
	} {
		h.wantEqual("settled again", normCall(h.settle(st)), normCall(ok))
	}

	_, err = h.s.SettleCall(h.ctx, store.Settlement{CallID: "c2", LeaseID: a.Lease.ID, Outcome: store.OutcomeOK})
	h.wantErr("SettleCall(accepted call, ok)", err, store.ErrWrongLease)
	h.wantCall(h.settle(store.Settlement{CallID: "c2", Outcome: store.OutcomeUnknown}), "c2", store.CallAccepted, "", "")
	na := h.settle(store.Settlement{CallID: "c2", Outcome: store.OutcomeCallNotAdmitted, Error: "queue closed"})
	h.wantCall(na, "c2", store.CallSettled, store.OutcomeCallNotAdmitted, "")
	h.wantEqual("error", na.Error, "queue closed")

	h.wantCall(h.settle(store.Settlement{CallID: "c3", Outcome: store.OutcomeCallNotAdmitted}), "c3", store.CallPublished, "", a.Lease.ID)
	h.wantCall(h.settle(store.Settlement{CallID: "c3", Outcome: store.OutcomeUnknown}), "c3", store.CallSettled, store.OutcomeUnknown, a.Lease.ID)
	te := h.settle(store.Settlement{CallID: "c4", LeaseID: a.Lease.ID, Outcome: store.OutcomeToolError, Error: "boom"})
	h.wantCall(te, "c4", store.CallSettled, store.OutcomeToolError, a.Lease.ID)
	h.wantEqual("error", te.Error, "boom")

	// A draining lease still posts the outcomes of the calls in hand.
	if _, err := h.s.Drain(h.ctx, b.Lease.ID); err != nil {
		h.t.Fatalf("Drain: %v", err)
	}
	h.wantCall(h.settle(store.Settlement{CallID: "c5", LeaseID: b.Lease.ID, Outcome: store.OutcomeOK}), "c5", store.CallSettled, store.OutcomeOK, b.Lease.ID)
	_, err = h.s.SettleCall(h.ctx, store.Settlement{CallID: "nope", LeaseID: a.Lease.ID, Outcome: store.OutcomeOK})
	h.wantErr("SettleCall(unknown call)", err, store.ErrUnknownCall)
	if u, err := h.s.Unsettled(h.ctx); err != nil || len(u) != 0 {
		h.t.Fatalf("Unsettled = %v, %v; want none", callIDs(u), err)
	}
}
