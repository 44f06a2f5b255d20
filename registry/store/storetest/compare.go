package storetest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// The norm functions make records comparable whichever way a store keeps
// them: times in UTC without monotonic readings, JSON compacted, empty
// slices nil.

func normTime(t time.Time) time.Time { return t.Round(0).UTC() }

func normJSON(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, m) != nil {
		return m
	}
	return b.Bytes()
}

func normStrings(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func normRegistration(r store.Registration) store.Registration {
	r.RegisteredAt = normTime(r.RegisteredAt)
	r.Tags, r.Tools = normStrings(r.Tags), normStrings(r.Tools)
	r.Declaration = normJSON(r.Declaration)
	return r
}

func normLease(l store.Lease) store.Lease {
	l.ExpiresAt = normTime(l.ExpiresAt)
	return l
}

func normCall(c store.Call) store.Call {
	c.Payload, c.Result = normJSON(c.Payload), normJSON(c.Result)
	c.AcceptedAt, c.Deadline = normTime(c.AcceptedAt), normTime(c.Deadline)
	c.PublishedAt, c.SettledAt = normTime(c.PublishedAt), normTime(c.SettledAt)
	return c
}

func normAll[T any](xs []T, norm func(T) T) []T {
	if len(xs) == 0 {
		return nil
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = norm(x)
	}
	return out
}

func normCatalog(c store.Catalog) store.Catalog {
	c.Registrations = normAll(c.Registrations, normRegistration)
	c.Leases = normAll(c.Leases, normLease)
	return c
}

// wantEqual fails the subtest unless got and want are deeply equal.
func (h *harness) wantEqual(what string, got, want any) {
	h.t.Helper()
	if !reflect.DeepEqual(got, want) {
		h.t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// wantNoEffects fails the subtest unless fx is empty.
func (h *harness) wantNoEffects(what string, fx store.Effects) {
	h.t.Helper()
	if len(fx.Activated)+len(fx.Removed)+len(fx.Draining)+len(fx.Ended)+len(fx.Settled) > 0 || fx.Revision != 0 {
		h.t.Fatalf("%s: effects %+v, want none", what, fx)
	}
}

// wantEffects fails the subtest unless fx lists these registrations
// (tokens), removed toolsets, draining, ended leases and settled calls (ids,
// in any order), and revision.
func (h *harness) wantEffects(what string, fx store.Effects, activated, removed, draining, ended, settled []string, revision uint64) {
	h.t.Helper()
	h.wantStrings(what+": activated", tokens(fx.Activated), activated, true)
	h.wantStrings(what+": removed", fx.Removed, removed, true)
	h.wantStrings(what+": draining", leaseIDs(fx.Draining), draining, false)
	h.wantStrings(what+": ended", leaseIDs(fx.Ended), ended, false)
	h.wantStrings(what+": settled", callIDs(fx.Settled), settled, false)
	if fx.Revision != revision {
		h.t.Fatalf("%s: revision %d, want %d", what, fx.Revision, revision)
	}
}
