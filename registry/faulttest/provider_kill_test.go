package faulttest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// Scenario 1: a provider process is killed (SIGKILL) with calls in flight.
//
// The registry runs in this process with a 2s lease (short, but long
// enough for B to renew on a loaded machine); provider A is a process,
// provider B is in this process, both serving revision r1 with room for 4
// calls. 24 slow calls (500ms) are fired at once; as soon as A has started
// one, A is killed.
//
// Expected: the calls A had in hand end outcome_unknown when its lease
// expires (never re-run on B); every other call ends ok on exactly one
// provider (the rest are routed to B), or call_not_admitted if its deadline
// passed first (it does not here: the deadline is 10s). Nothing runs twice.
//
// Consumers retry with the same call id on transport errors; an
// outcome_unknown they read is final here, because A's lease ends (and the
// record settles) long before any consumer's deadline: the test checks
// the record is settled, not left published.
func TestProviderKilledWithCallsInFlight(t *testing.T) {
	t.Parallel()
	eachStore(t, providerKilledWithCallsInFlight)
}

func providerKilledWithCallsInFlight(t *testing.T, b *backend) {
	dir := t.TempDir()
	r := b.start(t, registrytest.Options{LeaseTTL: 2 * time.Second})
	c := r.Client(t, "")

	logs := map[string]string{"A": filepath.Join(dir, "A.exec")}
	a := startProviderProc(t, "A", r.URL, "r1", 4, logs["A"])
	execB, logB := newExecLog(t, dir, "B")
	logs["B"] = logB
	registrytest.Serve(t, r.Client(t, ""), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 4, Provider: "B", DrainTimeout: drainTimeout,
	}, execB)
	ts := registrytest.WaitProviders(t, c, "echo", 2)
	leaseOf := leasesByProvider(t, r.Store)
	if leaseOf["A"] == "" || leaseOf["B"] == "" {
		t.Fatalf("leases by provider: %v", leaseOf)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	wait := fire(ctx, c, ts.Token, callIDs("call", 24), "slow", `{"millis":500}`, 10*time.Second)
	startedOnA := waitLines(t, logs["A"], 1, 10*time.Second)
	a.kill()
	t.Logf("killed A with %d calls started", len(startedOnA))
	results := wait()

	runs := executions(t, logs)
	checkExecutions(t, runs, results)
	var unknown, neverStarted int
	for _, res := range results {
		rec, err := r.Store.GetCall(context.Background(), res.id)
		if err != nil {
			t.Errorf("%v: no record: %v", res, err)
			continue
		}
		if rec.State != store.CallSettled {
			t.Errorf("%v: record left %s", res, rec.State)
			continue
		}
		switch res.name {
		case "ok":
			if rec.Outcome != store.OutcomeOK {
				t.Errorf("%v: recorded %s", res, rec.Outcome)
			}
			for name, lease := range leaseOf {
				if lease == rec.LeaseID && runs[res.id][name] != 1 {
					t.Errorf("%v: settled by %s's lease, but %s ran it %d times (%v)", res, name, name, runs[res.id][name], runs[res.id])
				}
			}
		case registry.ErrOutcomeUnknown:
			unknown++
			switch {
			case rec.Outcome != store.OutcomeUnknown:
				t.Errorf("%v: recorded %s", res, rec.Outcome)
			case rec.LeaseID != leaseOf["A"]:
				t.Errorf("%v: published to lease %s, not to the killed provider's", res, rec.LeaseID)
			case runs[res.id]["B"] != 0:
				t.Errorf("%v: re-run on B", res)
			}
			if runs[res.id]["A"] == 0 {
				neverStarted++
			}
		case registry.ErrCallNotAdmitted:
			if total(runs[res.id]) != 0 {
				t.Errorf("%v: ran %v", res, runs[res.id])
			}
		default:
			t.Errorf("%v: want ok, outcome_unknown or call_not_admitted", res)
		}
	}
	if unknown == 0 {
		t.Errorf("no call ended outcome_unknown: A had started %v when it was killed, 500ms before it could post", startedOnA)
	}
	t.Logf("outcomes: %s; %d outcome_unknown calls never started on A (their frames were lost with it)", tally(results), neverStarted)
}
