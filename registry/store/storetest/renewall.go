package storetest

import (
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// testRenewAll: every lease not ended yet, past its expiry or not, gets a
// full TTL from now; a lease that ended stays ended; nothing is settled.
func testRenewAll(h *harness) {
	r := registration("weather", "1", "fpA")
	a, b := h.register(r, "p1"), h.register(r, "p2")
	gone := h.register(r, "p3")
	h.release(gone.Lease.ID)
	h.accept(call("c1", r), a.Lease.ID)
	h.advance(ttl + time.Second) // both past their expiry, not ended
	leases, err := h.s.RenewAll(h.ctx)
	if err != nil {
		h.t.Fatalf("RenewAll: %v", err)
	}
	h.wantStrings("renewed leases", leaseIDs(leases), []string{a.Lease.ID, b.Lease.ID}, false)
	for _, l := range leases {
		h.wantTime("expiry of "+l.ID, l.ExpiresAt, h.now().Add(ttl))
	}
	if fx := h.expire(); len(fx.Ended) != 0 || len(fx.Settled) != 0 {
		h.t.Fatalf("ExpireLeases right after RenewAll ended %v and settled %v", leaseIDs(fx.Ended), callIDs(fx.Settled))
	}
	h.wantStored("c1", store.CallPublished, "", a.Lease.ID)
	if _, err := h.s.Renew(h.ctx, a.Lease.ID); err != nil {
		h.t.Fatalf("Renew after RenewAll: %v", err)
	}
	_, err = h.s.Renew(h.ctx, gone.Lease.ID)
	h.wantErr("Renew(released lease)", err, store.ErrLeaseGone)
}
