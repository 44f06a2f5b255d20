package storetest

import (
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

func testRegisterCreates(h *harness) {
	r := registration("weather", "1", "fpA")
	got := h.register(r, "p1")
	want := store.Lease{ID: got.Lease.ID, Toolset: "weather", Token: r.Token, Provider: "p1",
		MaxInFlight: 4, State: store.LeaseActive, TTL: ttl, ExpiresAt: h.now().Add(ttl)}
	if got.Lease.ID == "" {
		h.t.Fatal("Register: the lease has no id")
	}
	h.wantEqual("lease", normLease(got.Lease), normLease(want))
	r.RegisteredAt = h.now() // a registration without a time is stamped
	h.wantEqual("registration", normRegistration(got.Registration), normRegistration(r))
	h.wantEffects("Register", got.Effects, []string{r.Token}, nil, nil, nil, nil, 1)
	h.wantEqual("catalog", normCatalog(h.catalog()), normCatalog(store.Catalog{
		Revision: 1, Registrations: []store.Registration{r}, Leases: []store.Lease{want}}))
	changes, rev, reset, err := h.s.Changes(h.ctx, 0)
	if err != nil || rev != 1 || reset {
		h.t.Fatalf("Changes(0) = revision %d, reset %v, %v; want 1, false", rev, reset, err)
	}
	h.wantEqual("changes", changes, []store.Change{{Revision: 1, Toolset: "weather", Kind: store.ChangeRegistered}})
	other := h.register(registration("maps", "1", "fpA"), "p1")
	if other.Lease.ID == got.Lease.ID {
		h.t.Fatalf("two leases have the id %s", got.Lease.ID)
	}
}

func testRegisterJoins(h *harness) {
	r := registration("weather", "1", "fpA")
	a := h.register(r, "p1")
	h.advance(time.Second)
	b := h.register(r, "p2")
	if b.Lease.State != store.LeaseActive || b.Lease.ID == a.Lease.ID {
		h.t.Fatalf("joining lease %+v, want a new active lease", b.Lease)
	}
	h.wantEqual("joined registration", normRegistration(b.Registration), normRegistration(a.Registration))
	h.wantNoEffects("join", b.Effects)
	cat := h.catalog()
	if cat.Revision != 1 || len(cat.Registrations) != 1 {
		h.t.Fatalf("catalog revision %d, %d registrations; want 1, 1", cat.Revision, len(cat.Registrations))
	}
	want := []store.Lease{a.Lease, b.Lease}
	if want[1].ID < want[0].ID {
		want[0], want[1] = want[1], want[0]
	}
	h.wantEqual("catalog leases", normAll(cat.Leases, normLease), normAll(want, normLease))
}

func testRevisionConflict(h *harness) {
	r := registration("weather", "1", "fpA")
	h.register(r, "p1")
	_, err := h.s.Register(h.ctx, input(registration("weather", "1", "fpB"), "p2"))
	h.wantErr("Register(revision 1, another fingerprint)", err, store.ErrRevisionConflict)
	cat := h.catalog()
	if cat.Revision != 1 || len(cat.Leases) != 1 || cat.Registrations[0].Token != r.Token {
		h.t.Fatalf("catalog after a refused registration: %+v", cat)
	}
}

func testStageReplacement(h *harness) {
	v1, v2 := registration("weather", "1", "fpA"), registration("weather", "2", "fpB")
	a1, a2 := h.register(v1, "p1"), h.register(v1, "p2")
	b := h.register(v2, "p3")
	if b.Lease.State != store.LeasePending || b.Registration.Token != v2.Token {
		h.t.Fatalf("replacing lease %+v on %s, want pending on %s", b.Lease, b.Registration.Token, v2.Token)
	}
	h.wantEffects("stage", b.Effects, nil, nil, []string{a1.Lease.ID, a2.Lease.ID}, nil, nil, 0)
	for _, l := range b.Effects.Draining {
		if l.State != store.LeaseDraining {
			h.t.Fatalf("Effects.Draining lists lease %s %s", l.ID, l.State)
		}
	}
	c := h.register(v2, "p4") // joins the pending registration
	if c.Lease.State != store.LeasePending || c.Registration.Token != v2.Token {
		h.t.Fatalf("lease joining the pending registration: %+v", c.Lease)
	}
	h.wantNoEffects("join pending", c.Effects)
	d := h.register(v1, "p5") // a replica of the old revision joins it draining
	if d.Lease.State != store.LeaseDraining || d.Registration.Token != v1.Token {
		h.t.Fatalf("lease joining the replaced registration: %+v", d.Lease)
	}
	h.wantNoEffects("join replaced", d.Effects)
	cat := h.catalog()
	if cat.Revision != 1 || len(cat.Registrations) != 1 || cat.Registrations[0].Token != v1.Token {
		h.t.Fatalf("catalog while a replacement is pending: %+v", cat)
	}
	states := map[string]store.LeaseState{a1.Lease.ID: store.LeaseDraining, a2.Lease.ID: store.LeaseDraining,
		b.Lease.ID: store.LeasePending, c.Lease.ID: store.LeasePending, d.Lease.ID: store.LeaseDraining}
	if len(cat.Leases) != len(states) {
		h.t.Fatalf("catalog lists %d leases, want %d", len(cat.Leases), len(states))
	}
	for _, l := range cat.Leases {
		if l.State != states[l.ID] {
			h.t.Fatalf("lease %s is %s, want %s", l.ID, l.State, states[l.ID])
		}
	}
}

func testActivationOnRelease(h *harness) {
	v1, v2 := registration("weather", "1", "fpA"), registration("weather", "2", "fpB")
	a1, a2 := h.register(v1, "p1"), h.register(v1, "p2")
	b, c := h.register(v2, "p3"), h.register(v2, "p4")
	if _, err := h.s.Drain(h.ctx, c.Lease.ID); err != nil {
		h.t.Fatalf("Drain(pending lease): %v", err)
	}
	h.wantEffects("first release", h.release(a1.Lease.ID), nil, nil, nil, []string{a1.Lease.ID}, nil, 0)
	fx := h.release(a2.Lease.ID)
	h.wantEffects("last release", fx, []string{v2.Token}, nil, nil, []string{a2.Lease.ID}, nil, 2)
	cat := h.catalog()
	if len(cat.Registrations) != 1 || cat.Registrations[0].Token != v2.Token || cat.Revision != 2 {
		h.t.Fatalf("catalog after activation: %+v", cat)
	}
	states := map[string]store.LeaseState{b.Lease.ID: store.LeaseActive, c.Lease.ID: store.LeaseDraining}
	if len(cat.Leases) != 2 || cat.Leases[0].State != states[cat.Leases[0].ID] || cat.Leases[1].State != states[cat.Leases[1].ID] {
		h.t.Fatalf("leases after activation: %+v, want %v (a drained lease stays draining)", cat.Leases, states)
	}
	changes, _, _, _ := h.s.Changes(h.ctx, 1)
	h.wantEqual("changes", changes, []store.Change{{Revision: 2, Toolset: "weather", Kind: store.ChangeReplaced}})
	h.wantNoEffects("release again", h.release(a2.Lease.ID))
}

func testActivationOnExpiry(h *harness) {
	v1, v2 := registration("weather", "1", "fpA"), registration("weather", "2", "fpB")
	a := h.register(v1, "p1")
	h.advance(20 * time.Second)
	b := h.register(v2, "p2")
	h.advance(10 * time.Second) // a's expiry, not past it
	h.wantNoEffects("ExpireLeases at the expiry", h.expire())
	h.advance(time.Nanosecond)
	fx := h.expire()
	h.wantEffects("ExpireLeases past the expiry", fx, []string{v2.Token}, nil, nil, []string{a.Lease.ID}, nil, 2)
	cat := h.catalog()
	if len(cat.Leases) != 1 || cat.Leases[0].ID != b.Lease.ID || cat.Leases[0].State != store.LeaseActive {
		h.t.Fatalf("leases after activation: %+v, want %s active", cat.Leases, b.Lease.ID)
	}

	// Register ends expired leases first, and registers against what that
	// leaves: the replacement activated, joined active, replaced in turn.
	m1, m2, m3 := registration("maps", "1", "fpA"), registration("maps", "2", "fpB"), registration("maps", "3", "fpC")
	old := h.register(m1, "p3")
	h.advance(10 * time.Second)
	m2a := h.register(m2, "p4")
	h.advance(ttl - 5*time.Second) // old is past its expiry; m2a is not
	m2b := h.register(m2, "p5")
	if m2b.Lease.State != store.LeaseActive {
		h.t.Fatalf("lease joining the replacement the sweep activated: %s, want active", m2b.Lease.State)
	}
	h.wantEffects("Register after expiry", m2b.Effects, []string{m2.Token}, nil, nil, []string{old.Lease.ID, b.Lease.ID}, nil, 4)
	m3a := h.register(m3, "p6")
	if m3a.Lease.State != store.LeasePending {
		h.t.Fatalf("lease of the next replacement: %s, want pending", m3a.Lease.State)
	}
	h.wantEffects("next replacement", m3a.Effects, nil, nil, []string{m2a.Lease.ID, m2b.Lease.ID}, nil, nil, 0)
}

func testImmediateReplacement(h *harness) {
	v1, v2 := registration("weather", "1", "fpA"), registration("weather", "2", "fpB")
	a := h.register(v1, "p1")
	h.release(a.Lease.ID)
	b := h.register(v2, "p2")
	if b.Lease.State != store.LeaseActive {
		h.t.Fatalf("replacing lease is %s, want active", b.Lease.State)
	}
	h.wantEffects("replace", b.Effects, []string{v2.Token}, nil, nil, nil, nil, 2)
	changes, _, _, _ := h.s.Changes(h.ctx, 0)
	h.wantEqual("changes", changes, []store.Change{
		{Revision: 1, Toolset: "weather", Kind: store.ChangeRegistered},
		{Revision: 2, Toolset: "weather", Kind: store.ChangeReplaced}})

	// Leases past their expiry (of every toolset) are ended first, then the
	// replacement happens.
	m1, m2 := registration("maps", "1", "fpA"), registration("maps", "2", "fpB")
	old := h.register(m1, "p3")
	h.advance(ttl + time.Second)
	c := h.register(m2, "p4")
	if c.Lease.State != store.LeaseActive {
		h.t.Fatalf("replacing lease is %s, want active", c.Lease.State)
	}
	h.wantEffects("replace after expiry", c.Effects, []string{m2.Token}, nil, nil, []string{old.Lease.ID, b.Lease.ID}, nil, 4)
}

func testReplacementPending(h *harness) {
	v1, v2, v3 := registration("weather", "1", "fpA"), registration("weather", "2", "fpB"), registration("weather", "3", "fpC")
	h.register(v1, "p1")
	h.register(v2, "p2")
	before := h.catalog()
	_, err := h.s.Register(h.ctx, input(v3, "p3"))
	h.wantErr("Register(a third revision)", err, store.ErrReplacementPending)
	h.wantEqual("catalog after a refused registration", normCatalog(h.catalog()), normCatalog(before))
}

func testOldTokenCallsNotAdmitted(h *harness) {
	v1, v2 := registration("weather", "1", "fpA"), registration("weather", "2", "fpB")
	a := h.register(v1, "p1")
	h.accept(call("c1", v1), "")
	h.wantCall(h.accept(call("c2", v1), a.Lease.ID), "c2", store.CallPublished, "", a.Lease.ID)
	h.register(v2, "p2")
	// The old token is still the active one: admitted, but a is draining.
	h.wantCall(h.accept(call("c3", v1), a.Lease.ID), "c3", store.CallAccepted, "", "")
	fx := h.release(a.Lease.ID)
	h.wantEffects("activation", fx, []string{v2.Token}, nil, nil, []string{a.Lease.ID}, []string{"c1", "c2", "c3"}, 2)
	h.wantStored("c1", store.CallSettled, store.OutcomeCallNotAdmitted, "")
	h.wantStored("c2", store.CallSettled, store.OutcomeUnknown, a.Lease.ID)
	h.wantStored("c3", store.CallSettled, store.OutcomeCallNotAdmitted, "")
	_, _, err := h.s.AcceptCall(h.ctx, call("c4", v1), "")
	h.wantErr("AcceptCall(old token)", err, store.ErrAdmissionConflict)
	h.accept(call("c5", v2), "")
}
