package storetest

import (
	"fmt"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

func testCatalogRevision(h *harness) {
	b1, a1, c1 := registration("b", "1", "fpA"), registration("a", "1", "fpA"), registration("c", "1", "fpA")
	lb := h.register(b1, "p1")
	la := h.register(a1, "p2")
	lc := h.register(c1, "p3")
	wantRev := func(what string, rev uint64) {
		h.t.Helper()
		if got := h.catalog().Revision; got != rev {
			h.t.Fatalf("revision after %s: %d, want %d", what, got, rev)
		}
	}
	wantRev("three registrations", 3)
	cat := h.catalog()
	h.wantStrings("catalog toolsets", tokens(cat.Registrations), []string{a1.Token, b1.Token, c1.Token}, true)
	ids := leaseIDs([]store.Lease{lb.Lease, la.Lease, lc.Lease})
	h.wantStrings("catalog leases", leaseIDs(cat.Leases), ids, false)
	for i := 1; i < len(cat.Leases); i++ {
		if cat.Leases[i-1].ID >= cat.Leases[i].ID {
			h.t.Fatalf("catalog leases not sorted by id: %v", leaseIDs(cat.Leases))
		}
	}

	// Nothing that leaves the set of active registrations alone moves it.
	h.register(b1, "p4")
	h.register(registration("b", "2", "fpB"), "p5")
	if _, err := h.s.Drain(h.ctx, la.Lease.ID); err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.s.Renew(h.ctx, la.Lease.ID); err != nil {
		h.t.Fatal(err)
	}
	h.accept(call("x", c1), lc.Lease.ID)
	h.settle(store.Settlement{CallID: "x", LeaseID: lc.Lease.ID, Outcome: store.OutcomeOK})
	h.release(la.Lease.ID) // a keeps its registration, with no lease
	wantRev("joins, stages, drains, renewals, calls, a release", 3)
	if cat := h.catalog(); len(cat.Registrations) != 3 {
		h.t.Fatalf("catalog after a's last lease ended: %d registrations, want 3", len(cat.Registrations))
	}

	for _, l := range h.catalog().Leases {
		if l.Toolset == "b" && l.Token == b1.Token {
			h.release(l.ID)
		}
	}
	wantRev("b's replacement", 4)
	if _, err := h.s.Unregister(h.ctx, "c"); err != nil {
		h.t.Fatal(err)
	}
	wantRev("c's removal", 5)
	changes, rev, reset, err := h.s.Changes(h.ctx, 0)
	if err != nil || rev != 5 || reset {
		h.t.Fatalf("Changes(0) = revision %d, reset %v, %v", rev, reset, err)
	}
	h.wantEqual("changes", changes, []store.Change{
		{Revision: 1, Toolset: "b", Kind: store.ChangeRegistered},
		{Revision: 2, Toolset: "a", Kind: store.ChangeRegistered},
		{Revision: 3, Toolset: "c", Kind: store.ChangeRegistered},
		{Revision: 4, Toolset: "b", Kind: store.ChangeReplaced},
		{Revision: 5, Toolset: "c", Kind: store.ChangeRemoved},
	})
	changes, _, _, _ = h.s.Changes(h.ctx, 3)
	h.wantEqual("changes after 3", changes, []store.Change{
		{Revision: 4, Toolset: "b", Kind: store.ChangeReplaced},
		{Revision: 5, Toolset: "c", Kind: store.ChangeRemoved},
	})
	if changes, rev, reset, err = h.s.Changes(h.ctx, 5); err != nil || len(changes) != 0 || rev != 5 || reset {
		h.t.Fatalf("Changes(current) = %v, %d, reset %v, %v; want none, 5, false", changes, rev, reset, err)
	}
	if changes, rev, reset, err = h.s.Changes(h.ctx, 6); err != nil || len(changes) != 0 || rev != 5 || !reset {
		h.t.Fatalf("Changes(beyond current) = %v, %d, reset %v, %v; want none, 5, reset", changes, rev, reset, err)
	}
}

func testChangesReset(h *harness) {
	limit := h.f.ChangeLogLimit
	if limit == 0 {
		h.t.Skip("Factory.ChangeLogLimit is 0")
	}
	for i := range limit + 3 {
		h.register(registration(fmt.Sprintf("t%03d", i), "1", "fpA"), "p")
	}
	last := uint64(limit + 3)
	for _, after := range []uint64{0, 2} {
		changes, rev, reset, err := h.s.Changes(h.ctx, after)
		if err != nil || rev != last || !reset || len(changes) != 0 {
			h.t.Fatalf("Changes(%d) = %d changes, revision %d, reset %v, %v; want none, %d, reset", after, len(changes), rev, reset, err, last)
		}
	}
	changes, rev, reset, err := h.s.Changes(h.ctx, 3)
	if err != nil || rev != last || reset || len(changes) != limit {
		h.t.Fatalf("Changes(3) = %d changes, revision %d, reset %v, %v; want %d, %d, no reset", len(changes), rev, reset, err, limit, last)
	}
	for i, c := range changes {
		want := store.Change{Revision: uint64(4 + i), Toolset: fmt.Sprintf("t%03d", 3+i), Kind: store.ChangeRegistered}
		h.wantEqual("change", c, want)
	}
}

func testUnsettledOrder(h *harness) {
	r := registration("weather", "1", "fpA")
	a := h.register(r, "p1")
	for _, id := range []string{"c3", "c1", "c2", "c4"} {
		h.accept(call(id, r), "")
		h.advance(time.Second)
	}
	h.publish("c1", a.Lease.ID)
	h.settle(store.Settlement{CallID: "c4", Outcome: store.OutcomeCallNotAdmitted})
	early := call("c0", r)
	early.AcceptedAt = start.Add(-time.Minute)
	h.accept(early, a.Lease.ID)
	got, err := h.s.Unsettled(h.ctx)
	if err != nil {
		h.t.Fatalf("Unsettled: %v", err)
	}
	h.wantStrings("unsettled", callIDs(got), []string{"c0", "c3", "c1", "c2"}, true)
	h.wantCall(got[0], "c0", store.CallPublished, "", a.Lease.ID)
	h.wantCall(got[2], "c1", store.CallPublished, "", a.Lease.ID)
	h.wantCall(got[3], "c2", store.CallAccepted, "", "")
	h.wantEqual("unsettled record", normCall(got[1]), normCall(h.get("c3")))
}

func testPurgeSettled(h *harness) {
	r := registration("weather", "1", "fpA")
	h.register(r, "p1")
	for _, id := range []string{"c1", "c2", "c3", "c4"} {
		h.accept(call(id, r), "")
	}
	for _, id := range []string{"c1", "c2", "c3"} {
		h.advance(time.Second)
		h.settle(store.Settlement{CallID: id, Outcome: store.OutcomeCallNotAdmitted})
	}
	purge := func(before time.Time, want int) {
		h.t.Helper()
		if n, err := h.s.PurgeSettled(h.ctx, before); err != nil || n != want {
			h.t.Fatalf("PurgeSettled(%v) = %d, %v; want %d", before, n, err, want)
		}
	}
	purge(start.Add(2*time.Second), 1) // c1 settled before; c2 at that instant
	_, err := h.s.GetCall(h.ctx, "c1")
	h.wantErr("GetCall(purged call)", err, store.ErrUnknownCall)
	h.wantStored("c2", store.CallSettled, store.OutcomeCallNotAdmitted, "")
	purge(start.Add(time.Hour), 2)
	purge(start.Add(time.Hour), 0)
	h.wantStored("c4", store.CallAccepted, "", "")
	if u, _ := h.s.Unsettled(h.ctx); len(u) != 1 || u[0].ID != "c4" {
		h.t.Fatalf("Unsettled after purges = %v, want [c4]", callIDs(u))
	}
	h.accept(call("c1", r), "") // a purged id is free again
}
