package storetest

import (
	"encoding/json"

	"github.com/quiver-go/quiver/registry/store"
)

// testReturnCall: a published call whose frame was never written goes back
// to accepted, publishable again, and is no longer in its old lease's hand
// (releasing that lease does not settle it); any other state, or another
// lease, leaves the call as it is.
func testReturnCall(h *harness) {
	r := registration("weather", "1", "fpA")
	a, b := h.register(r, "p1"), h.register(r, "p2")
	h.accept(call("c1", r), a.Lease.ID)
	h.wantStored("c1", store.CallPublished, "", a.Lease.ID)

	got, err := h.s.ReturnCall(h.ctx, "c1", b.Lease.ID)
	if err != nil {
		h.t.Fatalf("ReturnCall(c1, another lease): %v", err)
	}
	h.wantCall(got, "c1", store.CallPublished, "", a.Lease.ID)

	got, err = h.s.ReturnCall(h.ctx, "c1", a.Lease.ID)
	if err != nil {
		h.t.Fatalf("ReturnCall(c1): %v", err)
	}
	h.wantCall(got, "c1", store.CallAccepted, "", "")
	h.wantStored("c1", store.CallAccepted, "", "")
	if !got.PublishedAt.IsZero() {
		h.t.Fatalf("a returned call keeps its publication time %v", got.PublishedAt)
	}
	h.release(a.Lease.ID)
	h.wantStored("c1", store.CallAccepted, "", "")
	if again, published := h.publishFlag("c1", b.Lease.ID); !published {
		h.t.Fatalf("PublishCall of a returned call: %s on %q, published false", again.State, again.LeaseID)
	}

	h.settle(store.Settlement{CallID: "c1", LeaseID: b.Lease.ID, Outcome: store.OutcomeOK, Result: json.RawMessage(`1`)})
	got, err = h.s.ReturnCall(h.ctx, "c1", b.Lease.ID)
	if err != nil {
		h.t.Fatalf("ReturnCall(settled c1): %v", err)
	}
	h.wantCall(got, "c1", store.CallSettled, store.OutcomeOK, b.Lease.ID)

	h.accept(call("c2", r), "")
	got, err = h.s.ReturnCall(h.ctx, "c2", b.Lease.ID)
	if err != nil {
		h.t.Fatalf("ReturnCall(accepted c2): %v", err)
	}
	h.wantCall(got, "c2", store.CallAccepted, "", "")
	_, err = h.s.ReturnCall(h.ctx, "nope", b.Lease.ID)
	h.wantErr("ReturnCall(unknown call)", err, store.ErrUnknownCall)
}
