package server_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// A node lists the failure_kind feature in every lease it answers with
// (register, renew, drain): a provider reads there that it may post a
// failure's kind and recovery.
func TestLeaseAnswersListTheFailureKindFeature(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{LeaseTTL: time.Minute})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	want := func(what string, features []string) {
		t.Helper()
		if !slices.Contains(features, registry.FeatureFailureKind) {
			t.Fatalf("%s lists features %q, want %q among them", what, features, registry.FeatureFailureKind)
		}
	}
	want("register", p.Lease.Features)
	renewed, err := c.Renew(context.Background(), &gen.RenewPayload{LeaseID: p.Lease.LeaseID})
	if err != nil {
		t.Fatal(err)
	}
	want("renew", renewed.Features)
	drained, err := c.Drain(context.Background(), &gen.DrainPayload{LeaseID: p.Lease.LeaseID})
	if err != nil {
		t.Fatal(err)
	}
	want("drain", drained.Features)
}

// A failure's kind and recovery posted by the provider are recorded with
// the outcome and reach the consumer's answer, its retries and the call's
// record; a later post changes none of them (the first outcome wins); a
// failure posted without them has none.
func TestPostResultCarriesTheFailureKind(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{LeaseTTL: time.Minute})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("raw"), "r1", 2, true)
	kinded := async(c, "raw", "echo", p.Lease.Token, "fk-kinded", `{"text":"Atlantis"}`, 10*time.Second)
	f1 := <-p.Frames
	plain := async(c, "raw", "echo", p.Lease.Token, "fk-plain", `{"text":"x"}`, 10*time.Second)
	f2 := <-p.Frames
	if *f1.CallID != "fk-kinded" {
		f1, f2 = f2, f1
	}

	post := func(callID, msg string, kind, recovery *string) *gen.CallRecord {
		t.Helper()
		rec, err := c.PostResult(context.Background(), &gen.PostResultPayload{CallID: callID, LeaseID: p.Lease.LeaseID,
			Error: &msg, ErrorKind: kind, ErrorRecovery: recovery})
		if err != nil {
			t.Fatalf("post_result %s: %v", callID, err)
		}
		return rec
	}
	str := func(s string) *string { return &s }
	wantKind := func(what string, kind, recovery *string, wantKind, wantRecovery string) {
		t.Helper()
		got := func(s *string) string {
			if s == nil {
				return "<absent>"
			}
			return *s
		}
		if got(kind) != wantKind || got(recovery) != wantRecovery {
			t.Fatalf("%s: error_kind %s error_recovery %s, want %s %s", what, got(kind), got(recovery), wantKind, wantRecovery)
		}
	}

	rec := post(*f1.CallID, "no city named Atlantis", str("unknown_city"), str("correct_call"))
	if rec.Outcome == nil || *rec.Outcome != "tool_error" || rec.Error == nil || *rec.Error != "no city named Atlantis" {
		t.Fatalf("post_result's record: %+v", rec)
	}
	wantKind("post_result's record", rec.ErrorKind, rec.ErrorRecovery, "unknown_city", "correct_call")
	ans := <-kinded
	if ans.err != nil || ans.out.Outcome != "tool_error" || ans.out.Error == nil || *ans.out.Error != "no city named Atlantis" {
		t.Fatalf("the consumer's answer: %+v %v", ans.out, ans.err)
	}
	wantKind("the consumer's answer", ans.out.ErrorKind, ans.out.ErrorRecovery, "unknown_city", "correct_call")

	// The first outcome wins, kind and recovery with it.
	again := post(*f1.CallID, "later", str("tool_unavailable"), str("replan"))
	wantKind("post_result again", again.ErrorKind, again.ErrorRecovery, "unknown_city", "correct_call")
	if *again.Error != "no city named Atlantis" {
		t.Fatalf("post_result again changed the error: %+v", again)
	}
	retry, err := registrytest.Call(c, "raw", "echo", p.Lease.Token, "fk-kinded", `{"text":"Atlantis"}`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	wantKind("a retry's answer", retry.ErrorKind, retry.ErrorRecovery, "unknown_city", "correct_call")
	got, err := c.GetCall(context.Background(), &gen.GetCallPayload{CallID: "fk-kinded"})
	if err != nil {
		t.Fatal(err)
	}
	wantKind("get_call", got.ErrorKind, got.ErrorRecovery, "unknown_city", "correct_call")
	stored := wantRecord(t, r, "fk-kinded", store.CallSettled, store.OutcomeToolError)
	if stored.ErrorKind != "unknown_city" || stored.ErrorRecovery != "correct_call" {
		t.Fatalf("the stored record: %+v", stored)
	}

	// Without a kind, none: the consumer reads tool_error.
	prec := post(*f2.CallID, "boom", nil, nil)
	wantKind("post_result's record (no kind)", prec.ErrorKind, prec.ErrorRecovery, "<absent>", "<absent>")
	pans := <-plain
	if pans.err != nil || pans.out.Outcome != "tool_error" {
		t.Fatalf("the consumer's answer (no kind): %+v %v", pans.out, pans.err)
	}
	wantKind("the consumer's answer (no kind)", pans.out.ErrorKind, pans.out.ErrorRecovery, "<absent>", "<absent>")
}

// A kind may come without a recovery, and a recovery without a kind.
func TestPostResultTakesKindAndRecoveryApart(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{LeaseTTL: time.Minute})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("raw"), "r1", 2, true)
	for _, tc := range []struct {
		id             string
		kind, recovery string
	}{{"fk-kind-only", "tool_unavailable", ""}, {"fk-recovery-only", "", "finish"}} {
		ch := async(c, "raw", "echo", p.Lease.Token, tc.id, `{"text":"x"}`, 10*time.Second)
		f := <-p.Frames
		msg := "failed"
		pl := &gen.PostResultPayload{CallID: *f.CallID, LeaseID: p.Lease.LeaseID, Error: &msg}
		if tc.kind != "" {
			pl.ErrorKind = &tc.kind
		}
		if tc.recovery != "" {
			pl.ErrorRecovery = &tc.recovery
		}
		if _, err := c.PostResult(context.Background(), pl); err != nil {
			t.Fatal(err)
		}
		ans := <-ch
		if ans.err != nil {
			t.Fatal(ans.err)
		}
		if (ans.out.ErrorKind != nil) != (tc.kind != "") || (ans.out.ErrorRecovery != nil) != (tc.recovery != "") ||
			(tc.kind != "" && *ans.out.ErrorKind != tc.kind) || (tc.recovery != "" && *ans.out.ErrorRecovery != tc.recovery) {
			t.Fatalf("%s: answer %+v", tc.id, ans.out)
		}
	}
}

// The result retention forgets a failure's message, not its kind and
// recovery: the record still says what kind of failure it was.
func TestResultRetentionKeepsTheFailureKind(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{LeaseTTL: time.Minute, ResultRetention: 50 * time.Millisecond})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Echo("raw"), "r1", 1, true)
	ch := async(c, "raw", "echo", p.Lease.Token, "fk-retained", `{"text":"x"}`, 10*time.Second)
	f := <-p.Frames
	msg, kind, recovery := "no such city", "unknown_city", "correct_call"
	if _, err := c.PostResult(context.Background(), &gen.PostResultPayload{CallID: *f.CallID, LeaseID: p.Lease.LeaseID,
		Error: &msg, ErrorKind: &kind, ErrorRecovery: &recovery}); err != nil {
		t.Fatal(err)
	}
	if ans := <-ch; ans.err != nil {
		t.Fatal(ans.err)
	}
	waitForgotten(t, r, "fk-retained", func(c store.Call) bool { return c.ResultForgotten })
	rec, err := c.GetCall(context.Background(), &gen.GetCallPayload{CallID: "fk-retained"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Error != nil || rec.ResultExpired == nil || !*rec.ResultExpired ||
		rec.ErrorKind == nil || *rec.ErrorKind != kind || rec.ErrorRecovery == nil || *rec.ErrorRecovery != recovery {
		t.Fatalf("record after the result retention: %+v", rec)
	}
}
