package storetest

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// scoped is call(callerID, r) made by the key named owner: recorded under
// its scoped id.
func scoped(owner, callerID string, r store.Registration) store.Call {
	c := call(callerID, r)
	c.ID, c.Owner, c.CallerID = store.ScopedCallID(owner, callerID), owner, callerID
	return c
}

// testCallScopes: a call id is its owner's. Two owners' calls with the same
// caller id, even with other payloads, are two records, each read and
// settled by its own scoped id; a caller id looked up outside its scope is
// unknown; a record of the empty scope (written before calls were scoped)
// reads as before; and a record keeps its owner through every write.
func testCallScopes(h *harness) {
	r := registration("weather", "1", "fpA")
	a := h.register(r, "p1")

	alice := scoped("alice", "ord-1", r)
	bob := scoped("bob", "ord-1", r)
	bob.Payload, bob.Digest = json.RawMessage(`{"text":"bob"}`), "sha256:bob"
	if alice.ID == bob.ID || alice.ID == "ord-1" || bob.ID == "ord-1" {
		h.t.Fatalf("scoped ids alice %q, bob %q of caller id ord-1 are not distinct", alice.ID, bob.ID)
	}
	ra := h.accept(alice, a.Lease.ID)
	rb := h.accept(bob, "")
	if ra.Owner != "alice" || ra.CallerID != "ord-1" || rb.Owner != "bob" || rb.CallerID != "ord-1" {
		h.t.Fatalf("accepted records: owner %q caller id %q, owner %q caller id %q; want alice ord-1, bob ord-1",
			ra.Owner, ra.CallerID, rb.Owner, rb.CallerID)
	}
	if ra.CallerCallID() != "ord-1" || rb.CallerCallID() != "ord-1" {
		h.t.Fatalf("CallerCallID = %q, %q; want ord-1", ra.CallerCallID(), rb.CallerCallID())
	}
	// The caller id alone, outside any scope, names no call.
	_, err := h.s.GetCall(h.ctx, "ord-1")
	h.wantErr("GetCall(caller id of scoped calls)", err, store.ErrUnknownCall)

	// Each owner's retry gets its own record; bob's payload is no
	// conflict with alice's.
	again, created, err := h.s.AcceptCall(h.ctx, bob, a.Lease.ID)
	if err != nil || created {
		h.t.Fatalf("AcceptCall(bob again) = created %v, %v; want bob's record", created, err)
	}
	h.wantEqual("bob's record accepted again", normCall(again), normCall(rb))
	h.wantStored(alice.ID, store.CallPublished, "", a.Lease.ID)
	h.wantStored(bob.ID, store.CallAccepted, "", "")

	// A record is its owner's: the same id under another owner is refused.
	forged := alice
	forged.Owner = "mallory"
	_, _, err = h.s.AcceptCall(h.ctx, forged, "")
	if err == nil || !strings.Contains(err.Error(), "ScopedCallID") {
		h.t.Fatalf("AcceptCall(id not in its owner's scope) = %v; want the scope refused", err)
	}

	// Settling one scope's call leaves the other's.
	h.settle(store.Settlement{CallID: alice.ID, LeaseID: a.Lease.ID, Outcome: store.OutcomeOK, Result: json.RawMessage(`{"for":"alice"}`)})
	got := h.wantStored(alice.ID, store.CallSettled, store.OutcomeOK, a.Lease.ID)
	if got.Owner != "alice" || got.CallerID != "ord-1" || string(normJSON(got.Result)) != `{"for":"alice"}` {
		h.t.Fatalf("alice's settled record: owner %q caller id %q result %s", got.Owner, got.CallerID, got.Result)
	}
	h.wantStored(bob.ID, store.CallAccepted, "", "")
	h.publish(bob.ID, a.Lease.ID)
	h.settle(store.Settlement{CallID: bob.ID, LeaseID: a.Lease.ID, Outcome: store.OutcomeToolError, Error: "bob's"})

	// Forgetting keeps the owner (Redis rewrites the record's JSON).
	h.advance(time.Minute)
	if _, err := h.s.ForgetSettled(h.ctx, h.now(), h.now()); err != nil {
		h.t.Fatalf("ForgetSettled: %v", err)
	}
	for _, c := range []store.Call{alice, bob} {
		got := h.get(c.ID)
		if got.Owner != c.Owner || got.CallerID != "ord-1" || !got.PayloadForgotten || !got.ResultForgotten {
			h.t.Fatalf("forgotten record %s: owner %q caller id %q payload forgotten %v result forgotten %v; want owner %q, ord-1, both forgotten",
				c.ID, got.Owner, got.CallerID, got.PayloadForgotten, got.ResultForgotten, c.Owner)
		}
	}
	for _, c := range []store.Call{alice, bob} {
		if _, created, err := h.s.AcceptCall(h.ctx, c, ""); err != nil || created {
			h.t.Fatalf("AcceptCall(%s's retry after forgetting) = created %v, %v; want the record", c.Owner, created, err)
		}
	}

	// The empty scope: the caller's id is the record's, as before scoping.
	legacy := call("ord-1", r)
	if store.ScopedCallID("", "ord-1") != "ord-1" {
		h.t.Fatalf("ScopedCallID(\"\", ord-1) = %q; want ord-1", store.ScopedCallID("", "ord-1"))
	}
	rl := h.accept(legacy, "")
	if rl.Owner != "" || rl.CallerID != "" || rl.CallerCallID() != "ord-1" {
		h.t.Fatalf("empty scope's record: owner %q caller id %q CallerCallID %q", rl.Owner, rl.CallerID, rl.CallerCallID())
	}
	// An empty-scope record whose caller chose the very id a named
	// owner's call is scoped to is not that owner's: the owner's call is a
	// conflict, never handed the other record.
	ord2 := scoped("alice", "ord-2", r)
	squatted := ord2 // the same request, in the empty scope
	squatted.Owner, squatted.CallerID = "", ""
	h.accept(squatted, "")
	_, _, err = h.s.AcceptCall(h.ctx, ord2, "")
	h.wantErr("AcceptCall(owner's id recorded in the empty scope)", err, store.ErrCallIDConflict)
	if got := h.get(squatted.ID); got.Owner != "" {
		h.t.Fatalf("empty scope's record after the conflict: owner %q", got.Owner)
	}

	// A caller id that leaves no room for the readable form still gets a
	// valid, distinct scoped id.
	long := strings.Repeat("l", 256)
	la, lb := store.ScopedCallID("alice", long), store.ScopedCallID("bob", long)
	if la == lb || len(la) > 256 || len(lb) > 256 || la == long {
		h.t.Fatalf("scoped ids of a 256-byte caller id: %q, %q", la, lb)
	}
	h.accept(scoped("alice", long, r), "")
	if got := h.get(la); got.CallerID != long || got.Owner != "alice" {
		h.t.Fatalf("long caller id's record: owner %q caller id %q", got.Owner, got.CallerID)
	}
}
