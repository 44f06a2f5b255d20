package storetest

import (
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

func testRenew(h *harness) {
	r := registration("weather", "1", "fpA")
	a := h.register(r, "p1")
	h.advance(20 * time.Second)
	l, err := h.s.Renew(h.ctx, a.Lease.ID)
	if err != nil {
		h.t.Fatalf("Renew: %v", err)
	}
	h.wantTime("renewed expiry", l.ExpiresAt, h.now().Add(ttl))
	if l.State != store.LeaseActive || l.ID != a.Lease.ID {
		h.t.Fatalf("renewed lease %+v", l)
	}
	h.advance(20 * time.Second) // past the first expiry, not the renewed one
	h.wantNoEffects("ExpireLeases", h.expire())
	cat := h.catalog()
	if len(cat.Leases) != 1 {
		h.t.Fatalf("catalog leases %+v, want the renewed one", cat.Leases)
	}
	h.wantTime("catalog expiry", cat.Leases[0].ExpiresAt, l.ExpiresAt)
	if _, err := h.s.Drain(h.ctx, a.Lease.ID); err != nil {
		h.t.Fatalf("Drain: %v", err)
	}
	if l, err = h.s.Renew(h.ctx, a.Lease.ID); err != nil || l.State != store.LeaseDraining {
		h.t.Fatalf("Renew(draining lease) = %s, %v; want draining", l.State, err)
	}
}

func testDrain(h *harness) {
	r := registration("weather", "1", "fpA")
	a, b := h.register(r, "p1"), h.register(r, "p2")
	h.advance(time.Second)
	l, err := h.s.Drain(h.ctx, a.Lease.ID)
	if err != nil || l.State != store.LeaseDraining {
		h.t.Fatalf("Drain = %+v, %v; want draining", l, err)
	}
	h.wantTime("drained lease's expiry", l.ExpiresAt, a.Lease.ExpiresAt)
	if l, err = h.s.Drain(h.ctx, a.Lease.ID); err != nil || l.State != store.LeaseDraining {
		h.t.Fatalf("Drain again = %+v, %v; want draining", l, err)
	}
	cat := h.catalog()
	if cat.Revision != 1 || len(cat.Leases) != 2 {
		h.t.Fatalf("catalog after Drain: %+v", cat)
	}
	for _, l := range cat.Leases {
		if want := map[string]store.LeaseState{a.Lease.ID: store.LeaseDraining, b.Lease.ID: store.LeaseActive}[l.ID]; l.State != want {
			h.t.Fatalf("lease %s is %s, want %s", l.ID, l.State, want)
		}
	}
	h.wantCall(h.accept(call("c1", r), a.Lease.ID), "c1", store.CallAccepted, "", "")
	_, _, err = h.s.PublishCall(h.ctx, "c1", a.Lease.ID)
	h.wantErr("PublishCall(draining lease)", err, store.ErrLeaseGone)
	h.wantStored("c1", store.CallAccepted, "", "")
}

func testGoneLease(h *harness) {
	r := registration("weather", "1", "fpA")
	a, b := h.register(r, "p1"), h.register(r, "p2")
	h.release(a.Lease.ID)
	for _, id := range []string{a.Lease.ID, "lease_unknown"} {
		_, err := h.s.Renew(h.ctx, id)
		h.wantErr("Renew(ended lease)", err, store.ErrLeaseGone)
		_, err = h.s.Drain(h.ctx, id)
		h.wantErr("Drain(ended lease)", err, store.ErrLeaseGone)
	}
	h.advance(ttl + time.Nanosecond) // b is past its expiry, not ended yet
	_, err := h.s.Renew(h.ctx, b.Lease.ID)
	h.wantErr("Renew(expired lease)", err, store.ErrLeaseGone)
	_, err = h.s.Drain(h.ctx, b.Lease.ID)
	h.wantErr("Drain(expired lease)", err, store.ErrLeaseGone)
	if cat := h.catalog(); len(cat.Leases) != 0 {
		h.t.Fatalf("catalog lists leases past their expiry: %+v", cat.Leases)
	}
}

func testReleaseSettlesUnknown(h *harness) {
	r := registration("weather", "1", "fpA")
	a, b := h.register(r, "p1"), h.register(r, "p2")
	h.accept(call("c1", r), a.Lease.ID)
	h.accept(call("c2", r), "")
	h.publish("c2", a.Lease.ID)
	h.accept(call("c3", r), b.Lease.ID)
	h.accept(call("c4", r), "")
	h.advance(time.Second)
	fx := h.release(a.Lease.ID)
	h.wantEffects("Release", fx, nil, nil, nil, []string{a.Lease.ID}, []string{"c1", "c2"}, 0)
	for _, c := range fx.Settled {
		h.wantCall(c, c.ID, store.CallSettled, store.OutcomeUnknown, a.Lease.ID)
		h.wantTime("settled at", c.SettledAt, h.now())
		if c.Error == "" {
			h.t.Fatalf("call %s settled as unknown without saying why", c.ID)
		}
	}
	h.wantStored("c1", store.CallSettled, store.OutcomeUnknown, a.Lease.ID)
	h.wantStored("c3", store.CallPublished, "", b.Lease.ID)
	h.wantStored("c4", store.CallAccepted, "", "")
	h.wantNoEffects("Release again", h.release(a.Lease.ID))
	h.wantNoEffects("Release(unknown lease)", h.release("lease_unknown"))
	late := h.settle(store.Settlement{CallID: "c1", LeaseID: a.Lease.ID, Outcome: store.OutcomeOK})
	h.wantCall(late, "c1", store.CallSettled, store.OutcomeUnknown, a.Lease.ID)
}

func testExpirySettlesUnknown(h *harness) {
	r := registration("weather", "1", "fpA")
	a := h.register(r, "p1")
	long := input(r, "p2")
	long.TTL = 2 * ttl
	b := h.registerInput(long)
	h.accept(call("c1", r), a.Lease.ID)
	h.accept(call("c2", r), b.Lease.ID)
	h.advance(ttl + time.Second)
	cat := h.catalog()
	if len(cat.Leases) != 1 || cat.Leases[0].ID != b.Lease.ID {
		h.t.Fatalf("catalog leases %v, want only %s", leaseIDs(cat.Leases), b.Lease.ID)
	}
	fx := h.expire()
	h.wantEffects("ExpireLeases", fx, nil, nil, nil, []string{a.Lease.ID}, []string{"c1"}, 0)
	h.wantStored("c1", store.CallSettled, store.OutcomeUnknown, a.Lease.ID)
	h.wantStored("c2", store.CallPublished, "", b.Lease.ID)
	h.wantNoEffects("ExpireLeases again", h.expire())
	_, err := h.s.Renew(h.ctx, a.Lease.ID)
	h.wantErr("Renew(expired lease)", err, store.ErrLeaseGone)
}

func testUnregister(h *harness) {
	v1, v2, other := registration("weather", "1", "fpA"), registration("weather", "2", "fpB"), registration("maps", "1", "fpA")
	a := h.register(v1, "p1")
	o := h.register(other, "p9")
	h.accept(call("c1", v1), "")
	h.accept(call("c2", v1), a.Lease.ID)
	h.accept(call("co", other), o.Lease.ID)
	b := h.register(v2, "p2")
	fx, err := h.s.Unregister(h.ctx, "weather")
	if err != nil {
		h.t.Fatalf("Unregister: %v", err)
	}
	h.wantEffects("Unregister", fx, nil, []string{"weather"}, nil, []string{a.Lease.ID, b.Lease.ID}, []string{"c1", "c2"}, 3)
	h.wantStored("c1", store.CallSettled, store.OutcomeCallNotAdmitted, "")
	h.wantStored("c2", store.CallSettled, store.OutcomeUnknown, a.Lease.ID)
	h.wantStored("co", store.CallPublished, "", o.Lease.ID)
	cat := h.catalog()
	if len(cat.Registrations) != 1 || cat.Registrations[0].Toolset != "maps" || len(cat.Leases) != 1 || cat.Revision != 3 {
		h.t.Fatalf("catalog after Unregister: %+v", cat)
	}
	changes, _, _, _ := h.s.Changes(h.ctx, 2)
	h.wantEqual("changes", changes, []store.Change{{Revision: 3, Toolset: "weather", Kind: store.ChangeRemoved}})
	_, err = h.s.Unregister(h.ctx, "weather")
	h.wantErr("Unregister again", err, store.ErrUnknownToolset)
	_, err = h.s.Unregister(h.ctx, "never")
	h.wantErr("Unregister(never registered)", err, store.ErrUnknownToolset)
	_, _, err = h.s.AcceptCall(h.ctx, call("c3", v1), "")
	h.wantErr("AcceptCall(unregistered toolset)", err, store.ErrUnknownToolset)
	_, err = h.s.Renew(h.ctx, b.Lease.ID)
	h.wantErr("Renew(lease of an unregistered toolset)", err, store.ErrLeaseGone)
	h.register(v2, "p3") // the name is free again
	if cat := h.catalog(); cat.Revision != 4 {
		h.t.Fatalf("revision after registering again: %d, want 4", cat.Revision)
	}
}
