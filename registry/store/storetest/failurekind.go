package storetest

import (
	"encoding/json"

	"github.com/quiver-go/quiver/registry/store"
)

// testFailureKind: a failure's kind and recovery are recorded with its
// outcome, returned by SettleCall and GetCall, kept for outcomes other than
// ok only (like the error message), and the first outcome wins over a later
// one carrying another kind.
func testFailureKind(h *harness) {
	r := registration("weather", "1", "fpA")
	a := h.register(r, "p1")
	for _, id := range []string{"kinded", "plain", "ok", "unknown"} {
		h.accept(call(id, r), a.Lease.ID)
	}
	h.accept(call("refused", r), "")

	kinded := h.settle(store.Settlement{CallID: "kinded", LeaseID: a.Lease.ID, Outcome: store.OutcomeToolError,
		Error: "no city named Atlantis", ErrorKind: "unknown_city", ErrorRecovery: "correct_call"})
	wantKind := func(what string, c store.Call, kind, recovery string) {
		h.t.Helper()
		if c.ErrorKind != kind || c.ErrorRecovery != recovery {
			h.t.Fatalf("%s: ErrorKind %q ErrorRecovery %q, want %q %q", what, c.ErrorKind, c.ErrorRecovery, kind, recovery)
		}
	}
	h.wantCall(kinded, "kinded", store.CallSettled, store.OutcomeToolError, a.Lease.ID)
	h.wantEqual("error", kinded.Error, "no city named Atlantis")
	wantKind("SettleCall(tool_error with a kind)", kinded, "unknown_city", "correct_call")
	wantKind("GetCall(tool_error with a kind)", h.get("kinded"), "unknown_city", "correct_call")

	// The first outcome wins: a later post keeps neither its kind nor its
	// recovery, nor removes the first's.
	for _, st := range []store.Settlement{
		{CallID: "kinded", LeaseID: a.Lease.ID, Outcome: store.OutcomeToolError, Error: "late", ErrorKind: "tool_unavailable", ErrorRecovery: "replan"},
		{CallID: "kinded", LeaseID: a.Lease.ID, Outcome: store.OutcomeToolError, Error: "late"},
		{CallID: "kinded", Outcome: store.OutcomeUnknown},
	} {
		h.wantEqual("settled again", normCall(h.settle(st)), normCall(kinded))
	}
	h.wantEqual("record after later posts", normCall(h.get("kinded")), normCall(kinded))

	// A failure posted without a kind has none.
	plain := h.settle(store.Settlement{CallID: "plain", LeaseID: a.Lease.ID, Outcome: store.OutcomeToolError, Error: "boom"})
	wantKind("SettleCall(tool_error without a kind)", plain, "", "")
	wantKind("GetCall(tool_error without a kind)", h.get("plain"), "", "")

	// An ok outcome keeps its result only.
	ok := h.settle(store.Settlement{CallID: "ok", LeaseID: a.Lease.ID, Outcome: store.OutcomeOK, Result: json.RawMessage(`{"t":1}`),
		Error: "ignored", ErrorKind: "ignored_kind", ErrorRecovery: "finish"})
	h.wantEqual("ok error", ok.Error, "")
	wantKind("SettleCall(ok with a kind)", ok, "", "")
	wantKind("GetCall(ok with a kind)", h.get("ok"), "", "")

	// The outcomes the registry decides keep what they are given, as Error.
	unknown := h.settle(store.Settlement{CallID: "unknown", Outcome: store.OutcomeUnknown, Error: "lease ended",
		ErrorKind: "provider_lost", ErrorRecovery: "replan"})
	wantKind("SettleCall(outcome_unknown with a kind)", unknown, "provider_lost", "replan")
	wantKind("GetCall(outcome_unknown with a kind)", h.get("unknown"), "provider_lost", "replan")
	refused := h.settle(store.Settlement{CallID: "refused", Outcome: store.OutcomeCallNotAdmitted, Error: "no provider"})
	wantKind("SettleCall(call_not_admitted without a kind)", refused, "", "")

	// A call accepted again under a settled id is the record, kind and all.
	again, created, err := h.s.AcceptCall(h.ctx, call("kinded", r), "")
	if err != nil || created {
		h.t.Fatalf("AcceptCall(settled call) = created %v, %v; want the record", created, err)
	}
	wantKind("AcceptCall(settled call with a kind)", again, "unknown_city", "correct_call")
}
