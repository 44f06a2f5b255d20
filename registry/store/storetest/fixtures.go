package storetest

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// registration is a registration of toolset at revision with fingerprint,
// its token derived from the three.
func registration(toolset, revision, fingerprint string) store.Registration {
	return store.Registration{
		Toolset:     toolset,
		Fingerprint: fingerprint,
		Revision:    revision,
		Token:       "tok." + toolset + "." + revision + "." + fingerprint,
		Version:     "v" + revision,
		Description: "The " + toolset + " tools.",
		Tags:        []string{"test"},
		Tools:       []string{"echo", "sum"},
		Declaration: json.RawMessage(`{"name":"` + toolset + `","tools":[]}`),
	}
}

// input is a registration by provider with the fixture TTL.
func input(r store.Registration, provider string) store.RegisterInput {
	return store.RegisterInput{Registration: r, Provider: provider, MaxInFlight: 4, TTL: ttl}
}

// call is a call of r's echo tool with r's token.
func call(id string, r store.Registration) store.Call {
	return store.Call{
		ID:       id,
		Toolset:  r.Toolset,
		Tool:     "echo",
		RunID:    "run-1",
		Token:    r.Token,
		Payload:  json.RawMessage(`{"text":"` + id + `"}`),
		Digest:   "sha256:" + id,
		Deadline: start.Add(time.Hour),
	}
}

// register registers and fails the subtest on error.
func (h *harness) register(r store.Registration, provider string) store.Registered {
	h.t.Helper()
	return h.registerInput(input(r, provider))
}

func (h *harness) registerInput(in store.RegisterInput) store.Registered {
	h.t.Helper()
	got, err := h.s.Register(h.ctx, in)
	if err != nil {
		h.t.Fatalf("Register(%s revision %s, %s): %v", in.Registration.Toolset, in.Registration.Revision, in.Provider, err)
	}
	return got
}

// accept accepts a new call and fails the subtest unless it was created.
func (h *harness) accept(c store.Call, assignTo string) store.Call {
	h.t.Helper()
	rec, created, err := h.s.AcceptCall(h.ctx, c, assignTo)
	if err != nil || !created {
		h.t.Fatalf("AcceptCall(%s, %q) = created %v, %v; want a new record", c.ID, assignTo, created, err)
	}
	return rec
}

// publish publishes and fails the subtest on error.
func (h *harness) publish(callID, leaseID string) store.Call {
	h.t.Helper()
	c, _ := h.publishFlag(callID, leaseID)
	return c
}

// publishFlag publishes, fails the subtest on error, and says whether this
// call published.
func (h *harness) publishFlag(callID, leaseID string) (store.Call, bool) {
	h.t.Helper()
	c, published, err := h.s.PublishCall(h.ctx, callID, leaseID)
	if err != nil {
		h.t.Fatalf("PublishCall(%s, %s): %v", callID, leaseID, err)
	}
	if published != (c.State == store.CallPublished && c.LeaseID == leaseID && published) {
		h.t.Fatalf("PublishCall(%s, %s) says published with the record %s on %q", callID, leaseID, c.State, c.LeaseID)
	}
	return c, published
}

// settle settles and fails the subtest on error.
func (h *harness) settle(st store.Settlement) store.Call {
	h.t.Helper()
	c, err := h.s.SettleCall(h.ctx, st)
	if err != nil {
		h.t.Fatalf("SettleCall(%s, %s, %s): %v", st.CallID, st.LeaseID, st.Outcome, err)
	}
	return c
}

// release releases and fails the subtest on error.
func (h *harness) release(leaseID string) store.Effects {
	h.t.Helper()
	fx, err := h.s.Release(h.ctx, leaseID)
	if err != nil {
		h.t.Fatalf("Release(%s): %v", leaseID, err)
	}
	return fx
}

// expire runs ExpireLeases and fails the subtest on error.
func (h *harness) expire() store.Effects {
	h.t.Helper()
	fx, err := h.s.ExpireLeases(h.ctx)
	if err != nil {
		h.t.Fatalf("ExpireLeases: %v", err)
	}
	return fx
}

// catalog reads the catalog and fails the subtest on error.
func (h *harness) catalog() store.Catalog {
	h.t.Helper()
	cat, err := h.s.Catalog(h.ctx)
	if err != nil {
		h.t.Fatalf("Catalog: %v", err)
	}
	return cat
}

// get reads a call and fails the subtest on error.
func (h *harness) get(id string) store.Call {
	h.t.Helper()
	c, err := h.s.GetCall(h.ctx, id)
	if err != nil {
		h.t.Fatalf("GetCall(%s): %v", id, err)
	}
	return c
}

// wantErr fails the subtest unless err is target.
func (h *harness) wantErr(what string, err, target error) {
	h.t.Helper()
	if !errors.Is(err, target) {
		h.t.Fatalf("%s: error %v, want %v", what, err, target)
	}
}

// wantCall fails the subtest unless c has the state, outcome and lease.
func (h *harness) wantCall(c store.Call, id string, state store.CallState, outcome store.Outcome, leaseID string) {
	h.t.Helper()
	if c.ID != id || c.State != state || c.Outcome != outcome || c.LeaseID != leaseID {
		h.t.Fatalf("call %s: state %q outcome %q lease %q, want call %s: state %q outcome %q lease %q",
			c.ID, c.State, c.Outcome, c.LeaseID, id, state, outcome, leaseID)
	}
}

// wantStored reads the call and checks it as wantCall does.
func (h *harness) wantStored(id string, state store.CallState, outcome store.Outcome, leaseID string) store.Call {
	h.t.Helper()
	c := h.get(id)
	h.wantCall(c, id, state, outcome, leaseID)
	return c
}

// wantTime fails the subtest unless got is want.
func (h *harness) wantTime(what string, got, want time.Time) {
	h.t.Helper()
	if !got.Equal(want) {
		h.t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// wantStrings fails the subtest unless got is want, in any order when
// inOrder is false.
func (h *harness) wantStrings(what string, got, want []string, inOrder bool) {
	h.t.Helper()
	if !inOrder {
		got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	}
	if !slices.Equal(got, want) {
		h.t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

// leaseIDs lists the leases' ids.
func leaseIDs(ls []store.Lease) []string {
	var ids []string
	for _, l := range ls {
		ids = append(ids, l.ID)
	}
	return ids
}

// callIDs lists the calls' ids.
func callIDs(cs []store.Call) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

// tokens lists the registrations' tokens.
func tokens(rs []store.Registration) []string {
	var ts []string
	for _, r := range rs {
		ts = append(ts, r.Token)
	}
	return ts
}
