package storetest

import (
	"encoding/json"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// snapshot is everything a store shows, to compare across a reopen.
type snapshot struct {
	catalog   store.Catalog
	changes   []store.Change
	revision  uint64
	unsettled []store.Call
	calls     []store.Call
}

func (h *harness) snapshot(callIDs []string) snapshot {
	h.t.Helper()
	var s snapshot
	s.catalog = normCatalog(h.catalog())
	var err error
	if s.changes, s.revision, _, err = h.s.Changes(h.ctx, 0); err != nil {
		h.t.Fatalf("Changes: %v", err)
	}
	u, err := h.s.Unsettled(h.ctx)
	if err != nil {
		h.t.Fatalf("Unsettled: %v", err)
	}
	s.unsettled = normAll(u, normCall)
	for _, id := range callIDs {
		s.calls = append(s.calls, normCall(h.get(id)))
	}
	return s
}

// testReopen checks that registrations, leases in every state, the
// revision, the change log and calls in every state survive closing and
// opening the store again, and that the reopened store carries on.
func testReopen(h *harness) {
	if h.f.Reopen == nil {
		h.t.Skip("Factory.Reopen is nil")
	}
	a1, b1, b2, c1 := registration("a", "1", "fpA"), registration("b", "1", "fpA"), registration("b", "2", "fpB"), registration("c", "1", "fpA")
	la, ld := h.register(a1, "p1"), h.register(a1, "p2")
	if _, err := h.s.Drain(h.ctx, ld.Lease.ID); err != nil {
		h.t.Fatal(err)
	}
	lb := h.register(b1, "p3")
	h.accept(call("cb", b1), lb.Lease.ID)
	h.accept(call("cbAccepted", b1), "")
	lp := h.register(b2, "p4") // b1's lease drains, b2's is pending
	h.register(c1, "p5")
	if _, err := h.s.Unregister(h.ctx, "c"); err != nil {
		h.t.Fatal(err)
	}
	h.accept(call("accepted", a1), "")
	h.accept(call("published", a1), la.Lease.ID)
	h.accept(call("ok", a1), la.Lease.ID)
	h.settle(store.Settlement{CallID: "ok", LeaseID: la.Lease.ID, Outcome: store.OutcomeOK, Result: json.RawMessage(`{"n":1}`)})
	h.accept(call("refused", a1), "")
	h.settle(store.Settlement{CallID: "refused", Outcome: store.OutcomeCallNotAdmitted, Error: "no"})
	h.accept(call("failed", a1), la.Lease.ID)
	h.settle(store.Settlement{CallID: "failed", LeaseID: la.Lease.ID, Outcome: store.OutcomeToolError, Error: "no city",
		ErrorKind: "unknown_city", ErrorRecovery: "correct_call"})
	ids := []string{"cb", "cbAccepted", "accepted", "published", "ok", "refused", "failed"}
	before := h.snapshot(ids)

	h.s = h.f.Reopen(h.t, h.s)
	after := h.snapshot(ids)
	h.wantEqual("catalog", after.catalog, before.catalog)
	h.wantEqual("changes", after.changes, before.changes)
	h.wantEqual("revision", after.revision, before.revision)
	h.wantEqual("unsettled", after.unsettled, before.unsettled)
	h.wantEqual("calls", after.calls, before.calls)

	// The reopened store carries on where the first one stopped.
	h.advance(time.Second)
	fx := h.release(lb.Lease.ID)
	h.wantEffects("activation after reopen", fx, []string{b2.Token}, nil, nil, []string{lb.Lease.ID}, []string{"cb", "cbAccepted"}, before.revision+1)
	h.wantStored("cb", store.CallSettled, store.OutcomeUnknown, lb.Lease.ID)
	h.wantStored("cbAccepted", store.CallSettled, store.OutcomeCallNotAdmitted, "")
	h.settle(store.Settlement{CallID: "published", LeaseID: la.Lease.ID, Outcome: store.OutcomeOK})
	h.wantCall(h.publish("accepted", la.Lease.ID), "accepted", store.CallPublished, "", la.Lease.ID)
	if l, err := h.s.Renew(h.ctx, lp.Lease.ID); err != nil || l.State != store.LeaseActive {
		h.t.Fatalf("Renew(activated lease) = %+v, %v", l, err)
	}
	if l, err := h.s.Renew(h.ctx, ld.Lease.ID); err != nil || l.State != store.LeaseDraining {
		h.t.Fatalf("Renew(drained lease) = %+v, %v", l, err)
	}
	n := h.register(a1, "p6")
	for _, l := range before.catalog.Leases {
		if l.ID == n.Lease.ID {
			h.t.Fatalf("new lease reuses id %s", l.ID)
		}
	}
}
