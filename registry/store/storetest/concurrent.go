package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/quiver-go/quiver/registry/store"
)

// testConcurrent runs calls through their lifecycle from many goroutines
// at once (run it with -race): every call must end with the outcome it was
// given, and of the goroutines accepting one shared call id exactly one
// creates it.
func testConcurrent(h *harness) {
	const workers, perWorker = 8, 12
	r := registration("weather", "1", "fpA")
	var leases []string
	for i := range 4 {
		leases = append(leases, h.register(r, fmt.Sprint("p", i)).Lease.ID)
	}
	var created atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			lease := leases[w%len(leases)]
			if _, ok, err := h.s.AcceptCall(h.ctx, call("shared", r), ""); err != nil {
				h.t.Errorf("AcceptCall(shared): %v", err)
			} else if ok {
				created.Add(1)
			}
			for i := range perWorker {
				if err := lifecycle(h, r, fmt.Sprintf("w%d-%d", w, i), lease, i%2 == 0); err != nil {
					h.t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() { // readers and lease renewals beside the writers
		for range perWorker {
			if _, err := h.s.Catalog(h.ctx); err != nil {
				h.t.Errorf("Catalog: %v", err)
			}
			if _, err := h.s.Renew(h.ctx, leases[0]); err != nil {
				h.t.Errorf("Renew: %v", err)
			}
			if _, err := h.s.Unsettled(h.ctx); err != nil {
				h.t.Errorf("Unsettled: %v", err)
			}
		}
	})
	wg.Wait()
	if h.t.Failed() {
		return
	}
	if n := created.Load(); n != 1 {
		h.t.Fatalf("%d goroutines created the shared call, want 1", n)
	}
	for w := range workers {
		for i := range perWorker {
			id := fmt.Sprintf("w%d-%d", w, i)
			want := store.OutcomeOK
			if i%2 == 1 {
				want = store.OutcomeToolError
			}
			h.wantStored(id, store.CallSettled, want, leases[w%len(leases)])
		}
	}
	u, err := h.s.Unsettled(h.ctx)
	if err != nil || len(u) != 1 || u[0].ID != "shared" {
		h.t.Fatalf("Unsettled = %v, %v; want [shared]", callIDs(u), err)
	}
}

// lifecycle accepts a call and settles it: assigned at acceptance and
// settled OK, or published apart and settled as a tool error.
func lifecycle(h *harness, r store.Registration, id, lease string, assign bool) error {
	c := call(id, r)
	if assign {
		rec, _, err := h.s.AcceptCall(h.ctx, c, lease)
		if err != nil || rec.State != store.CallPublished {
			return fmt.Errorf("AcceptCall(%s, %s) = %s, %v; want published", id, lease, rec.State, err)
		}
		_, err = h.s.SettleCall(h.ctx, store.Settlement{CallID: id, LeaseID: lease, Outcome: store.OutcomeOK})
		return err
	}
	if _, _, err := h.s.AcceptCall(h.ctx, c, ""); err != nil {
		return err
	}
	if rec, published, err := h.s.PublishCall(h.ctx, id, lease); err != nil || rec.State != store.CallPublished || !published {
		return fmt.Errorf("PublishCall(%s, %s) = %s (published %t), %v; want published", id, lease, rec.State, published, err)
	}
	_, err := h.s.SettleCall(h.ctx, store.Settlement{CallID: id, LeaseID: lease, Outcome: store.OutcomeToolError, Error: "boom"})
	return err
}
