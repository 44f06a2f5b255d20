package faulttest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// streamSetup runs a registry on b whose listener can break call streams, and
// one provider in this process (room for 8 calls) logging its executions.
func streamSetup(t *testing.T, b *backend, leaseTTL, grace time.Duration) (*faultRegistry, *registry.Client, string, string) {
	t.Helper()
	r := startFaultRegistry(t, b, leaseTTL, grace)
	c := client(t, r.URL)
	exec, logPath := newExecLog(t, t.TempDir(), "p")
	registrytest.Serve(t, client(t, r.URL), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 8, Provider: "p", DrainTimeout: drainTimeout,
	}, exec)
	ts := registrytest.WaitProviders(t, c, "echo", 1)
	return r, c, ts.Token, logPath
}

// recordOf reads a call's record.
func recordOf(t *testing.T, st store.Store, id string) store.Call {
	t.Helper()
	rec, err := st.GetCall(context.Background(), id)
	if err != nil {
		t.Fatalf("call %s: %v", id, err)
	}
	return rec
}

// Scenario 4: a provider's call stream is cut while it keeps its lease.
//
// The registry's side of the stream swallows what the registry writes
// (the writes succeed, nothing reaches the provider), three calls are
// published and their frames written into it, then the connection is cut.
// The provider reconnects its stream on the same lease.
//
// Expected: the three calls, published and written but never received,
// are not run (not on reconnection, not ever): their consumers read
// outcome_unknown at their deadline, the records stay published, and
// settle outcome_unknown after PublishedGrace; a retry with the same call
// id then reads outcome_unknown and runs nothing. Calls after the cut end
// ok on the same lease. Nothing runs twice.
//
// The consumers of the lost calls read outcome_unknown because their own
// deadline passed while the calls were published; the test retries one
// after the grace to check the record's outcome is the same.
func TestStreamCutKeepsServingOnTheSameLease(t *testing.T) {
	t.Parallel()
	eachStore(t, streamCutKeepsServingOnTheSameLease)
}

func streamCutKeepsServingOnTheSameLease(t *testing.T, b *backend) {
	r, c, token, logPath := streamSetup(t, b, 5*time.Second, 200*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	first := callUntilFinal(ctx, c, "echo", token, "before", `{"text":"a"}`, 5*time.Second)
	if first.name != "ok" {
		t.Fatalf("%v", first)
	}
	lease := recordOf(t, r.Store, "before").LeaseID

	if n := r.Net.Blackhole(); n != 1 {
		t.Fatalf("%d stream connections, want 1", n)
	}
	lostIDs := callIDs("lost", 3)
	waitLost := fire(ctx, c, token, lostIDs, "echo", `{"text":"b"}`, time.Second)
	eventually(t, 5*time.Second, "the lost calls' frames written", func() bool {
		sw := r.Net.Swallowed()
		for _, id := range lostIDs {
			if !bytes.Contains(sw, []byte(`"`+id+`"`)) {
				return false
			}
		}
		return true
	})
	for _, id := range lostIDs {
		if rec := recordOf(t, r.Store, id); rec.State != store.CallPublished || rec.LeaseID != lease {
			t.Fatalf("call %s: %s to lease %s, want published to %s", id, rec.State, rec.LeaseID, lease)
		}
	}
	if n := r.Net.Cut(); n != 1 {
		t.Fatalf("cut %d stream connections, want 1", n)
	}

	after := fire(ctx, c, token, callIDs("after", 3), "echo", `{"text":"c"}`, 5*time.Second)()
	for _, res := range after {
		if res.name != "ok" {
			t.Errorf("%v: want ok after the provider reconnected", res)
			continue
		}
		if rec := recordOf(t, r.Store, res.id); rec.LeaseID != lease {
			t.Errorf("%v: served on lease %s, want the provider's lease %s kept", res, rec.LeaseID, lease)
		}
	}
	lost := waitLost()
	for _, res := range lost {
		if res.name != registry.ErrOutcomeUnknown {
			t.Errorf("%v: want outcome_unknown (published, never received)", res)
		}
	}
	for _, id := range lostIDs {
		eventually(t, 5*time.Second, id+" settled after the grace", func() bool {
			return recordOf(t, r.Store, id).State == store.CallSettled
		})
		if rec := recordOf(t, r.Store, id); rec.Outcome != store.OutcomeUnknown || rec.LeaseID != lease {
			t.Errorf("call %s: %s on lease %s, want outcome_unknown on %s", id, rec.Outcome, rec.LeaseID, lease)
		}
	}
	retry := callUntilFinal(ctx, c, "echo", token, lostIDs[0], `{"text":"b"}`, time.Second)
	if retry.name != registry.ErrOutcomeUnknown {
		t.Errorf("retry %v: want the recorded outcome_unknown", retry)
	}

	all := append(append(append([]result{first}, lost...), after...), retry)
	runs := executions(t, map[string]string{"p": logPath})
	checkExecutions(t, runs, all)
	for _, id := range lostIDs {
		if n := total(runs[id]); n != 0 {
			t.Errorf("call %s ran %d times: its frame never reached the provider", id, n)
		}
	}
}

// Row 15 of the call-state table (docs/registry.md) on a real connection:
// published × the provider's stream ended before the frame was written →
// accepted again, routed again (it never reached a provider).
//
// The registry's writes to the stream block (as on a connection whose
// peer stopped reading); four calls are published to the lease: the
// registry's writer holds one frame in the blocked write, the other three
// wait in the stream's queue. Then the connection is cut and the provider
// reconnects on the same lease.
//
// Expected: the three queued calls go back to accepted, are routed again
// to the reconnected stream, run once and end ok. The call whose frame
// was in the blocked write may have reached the provider as far as the
// registry knows, so it stays published and its consumer reads
// outcome_unknown at its deadline; it never runs.
func TestStreamStalledThenCutRoutesUnwrittenCallsAgain(t *testing.T) {
	t.Parallel()
	eachStore(t, streamStalledThenCutRoutesUnwrittenCallsAgain)
}

func streamStalledThenCutRoutesUnwrittenCallsAgain(t *testing.T, b *backend) {
	r, c, token, logPath := streamSetup(t, b, 5*time.Second, 200*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	first := callUntilFinal(ctx, c, "echo", token, "before", `{"text":"a"}`, 5*time.Second)
	if first.name != "ok" {
		t.Fatalf("%v", first)
	}
	lease := recordOf(t, r.Store, "before").LeaseID

	if n := r.Net.Stall(); n != 1 {
		t.Fatalf("%d stream connections, want 1", n)
	}
	ids := callIDs("queued", 4)
	wait := fire(ctx, c, token, ids, "echo", `{"text":"b"}`, 3*time.Second)
	eventually(t, 5*time.Second, "four calls published, one write blocked", func() bool {
		for _, id := range ids {
			rec, err := r.Store.GetCall(context.Background(), id)
			if err != nil || rec.State != store.CallPublished {
				return false
			}
		}
		return r.Net.Blocked() == 1
	})
	if n := r.Net.Cut(); n != 1 {
		t.Fatalf("cut %d stream connections, want 1", n)
	}
	results := wait()

	runs := executions(t, map[string]string{"p": logPath})
	checkExecutions(t, runs, append(results, first))
	ok, unknown := 0, 0
	for _, res := range results {
		rec := recordOf(t, r.Store, res.id)
		switch {
		case res.name == "ok":
			ok++
			if rec.LeaseID != lease {
				t.Errorf("%v: served on lease %s, want %s", res, rec.LeaseID, lease)
			}
		case res.name == registry.ErrOutcomeUnknown && total(runs[res.id]) == 0 && rec.LeaseID == lease:
			unknown++
		default:
			t.Errorf("%v: want ok, or outcome_unknown without running (record %s %s on lease %s)", res, rec.State, rec.Outcome, rec.LeaseID)
		}
	}
	if ok != len(ids)-1 || unknown != 1 {
		t.Errorf("%d calls ended ok and %d outcome_unknown; want %d ok (their frames were never written: row 15 routes them again) and 1 outcome_unknown (the frame in the blocked write)", ok, unknown, len(ids)-1)
	}
}
