package faulttest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// refuseFor makes Redis unreachable through the proxy for d: every open
// connection is cut and new ones are closed as soon as they are accepted,
// as when Redis or the path to it is down. It returns when the outage
// ends.
func (p *redisProxy) refuseFor(d time.Duration) time.Time {
	p.mu.Lock()
	until := time.Now().Add(d)
	p.refuseUntil = until
	p.mu.Unlock()
	p.closeAll()
	return until
}

// A Redis outage longer than a lease's TTL, under two registry nodes,
// with calls in flight: the providers stay alive through it.
//
// Seen in the issue "Registry operations": outages of 23s and 31s with a
// 15s TTL turned 27 and 31 calls into outcome_unknown although 26 and 31
// of them had run. No provider could renew while Redis was unreachable,
// so every lease was past its expiry when Redis answered again, and the
// first node to touch the store ended them all (its expiry tick, or a
// provider's registration after its renewal was refused): the calls in
// the providers' hands settled outcome_unknown before the providers could
// post. The embedded store does not have this: a restarted registry gives
// every lease a full TTL (store.RenewAll) before it expires anything.
//
// Nodes A and B reach Redis through a proxy (redisProxy); providers P1 (on
// A) and P2 (on B) have room for 3 calls each, logging their executions.
// Leases last 2s. Six calls run (slow: three of 1s, held in the
// providers' hands until the outage begins, and three of 9s); six more
// wait accepted for room (slow, 300ms). Then the proxy refuses every
// connection for 6s, three times the TTL: the 1s calls end during the
// outage (their providers retry posting the outcome), the 9s ones after
// it; four more calls are sent during the outage (their consumers retry
// through unavailable and transport errors with the same call id).
// Consumers spread over both nodes and fail over between them.
//
// Expected: every node that saw the store fail gives every lease a full
// TTL from recovery (store.RenewAll) before anything else it asks the
// store (server's recoveringStore): the providers keep their leases (the
// same two, never registered again), every call runs exactly once and
// ends ok at its consumer, none is lost.
func TestRedisOutageLongerThanTheLeaseTTLKeepsTheLeases(t *testing.T) {
	t.Parallel()
	b := newRedisBackend(t, false)
	proxy := startRedisProxy(t, b.redis.Addr)
	b.via = proxy.URL()
	const leaseTTL, grace, outage = 2 * time.Second, 2 * time.Second, 6 * time.Second
	nodes := []*faultRegistry{startFaultRegistry(t, b, leaseTTL, grace), startFaultRegistry(t, b, leaseTTL, grace)}
	clients := []*registry.Client{client(t, nodes[0].URL), client(t, nodes[1].URL)}
	dir := t.TempDir()
	logs := map[string]string{}
	// The 1s calls are held in their providers' hands until the outage
	// has begun, so they end during it however slow the machine is.
	outageBegun := make(chan struct{})
	shortCalls := []string{"run-00", "run-02", "run-04"}
	for i, name := range []string{"P1", "P2"} {
		exec, path := newExecLog(t, dir, name)
		exec.holdUntil(outageBegun, shortCalls...)
		logs[name] = path
		registrytest.Serve(t, client(t, nodes[i].URL), registry.Registration{
			Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 3, Provider: name, DrainTimeout: drainTimeout,
		}, exec)
	}
	ts := registrytest.WaitProviders(t, clients[0], "echo", 2)
	registrytest.WaitProviders(t, clients[1], "echo", 2)
	direct := b.readStore(t, "") // straight to Redis, past the proxy
	before := leaseIDsOf(t, direct)
	if len(before) != 2 {
		t.Fatalf("leases before the outage: %v", before)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	const timeout = 30 * time.Second
	var mu sync.Mutex
	var results []result
	var wg sync.WaitGroup
	send := func(id string, first int, payload string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := callThrough(ctx, clients, first, "slow", ts.Token, id, payload, timeout)
			mu.Lock()
			results = append(results, r)
			mu.Unlock()
		}()
	}
	ran := func() int {
		n := 0
		for _, path := range logs {
			n += len(readLines(t, path))
		}
		return n
	}
	// Six calls run: three end during the outage, three after it.
	for i := range 6 {
		millis := 1000
		if i%2 == 1 {
			millis = 9000
		}
		send(fmt.Sprintf("run-%02d", i), i, fmt.Sprintf(`{"millis":%d}`, millis))
	}
	eventually(t, 10*time.Second, "six calls started", func() bool { return ran() >= 6 })
	// Six more wait for room, accepted.
	queued := callIDs("queued", 6)
	for i, id := range queued {
		send(id, i, `{"millis":300}`)
	}
	eventually(t, 10*time.Second, "the queued calls accepted", func() bool {
		for _, id := range queued {
			if rec, err := direct.GetCall(ctx, id); err != nil || rec.State != store.CallAccepted {
				return false
			}
		}
		return true
	})
	if n := ran(); n != 6 {
		t.Fatalf("%d calls started before the outage, want 6 (room for 3 on each provider)", n)
	}

	start := time.Now()
	recovered := proxy.refuseFor(outage)
	close(outageBegun)
	// Four calls sent while Redis is unreachable.
	time.Sleep(time.Second)
	for i, id := range callIDs("during", 4) {
		send(id, i, `{"millis":300}`)
	}
	time.Sleep(time.Until(recovered))
	t.Logf("Redis unreachable for %s (lease TTL %s) with 6 calls executing and 6 accepted", time.Since(start).Round(time.Millisecond), leaseTTL)
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the consumers did not finish: %s", tally(results))
	}
	slices.SortFunc(results, func(x, y result) int { return strings.Compare(x.id, y.id) })

	runs := executions(t, logs)
	checkExecutions(t, runs, results)
	for _, res := range results {
		rec, err := direct.GetCall(context.Background(), res.id)
		switch {
		case err != nil:
			t.Errorf("%v: read the record: %v", res, err)
		case res.name == "":
			t.Errorf("%v: no final answer (record %s): lost", res, describe(rec))
		case res.name != "ok" || rec.Outcome != store.OutcomeOK:
			t.Errorf("%v; ran %d times (%v); record %s (%s): want ok, run once: its provider was alive through the outage", res, total(runs[res.id]), runs[res.id], describe(rec), rec.Error)
		case total(runs[res.id]) != 1:
			t.Errorf("%v: ran %d times", res, total(runs[res.id]))
		}
	}
	if len(runs) != len(results) {
		t.Errorf("%d call ids ran, want %d", len(runs), len(results))
	}
	// The 1s calls ended during the outage: their outcomes were posted
	// after it, by providers retrying on leases past their first expiry.
	for _, id := range shortCalls {
		if rec := recordOf(t, direct, id); rec.SettledAt.Before(recovered) {
			t.Errorf("%s settled at %s, before the outage ended (%s): the test did not hold it through the outage", id,
				rec.SettledAt.Format("15:04:05.000"), recovered.Format("15:04:05.000"))
		}
	}
	if after := leaseIDsOf(t, direct); !slices.Equal(after, before) {
		t.Errorf("leases after the outage %v, before %v: want the same, the providers were alive", after, before)
	}
	t.Logf("outcomes: %s; %s", tally(results), failovers(results))
}

// A provider that dies while Redis is unreachable still loses its lease,
// one TTL after Redis answers again: the renewal at recovery is a full
// TTL, not a reprieve.
//
// One node reaches Redis through the proxy; provider K is a process,
// provider P is in this process, each with room for 2 (2s leases). Four
// calls (slow, 3s) run, two on each. The proxy refuses every connection
// for 6s; K is killed 1s into the outage, with its two calls in hand.
//
// Expected: K's lease is renewed at recovery (the node's first store
// operation then is RenewAll) and ends one TTL later (between TTL and TTL
// plus 3s after the outage ended, never before): the calls in its hand
// settle outcome_unknown then (call-state row 14), never re-run on P; P's
// calls end ok; P keeps its lease.
func TestProviderKilledDuringARedisOutageLosesItsLeaseATTLAfterRecovery(t *testing.T) {
	t.Parallel()
	b := newRedisBackend(t, false)
	proxy := startRedisProxy(t, b.redis.Addr)
	b.via = proxy.URL()
	const leaseTTL, grace, outage = 2 * time.Second, 2 * time.Second, 6 * time.Second
	r := startFaultRegistry(t, b, leaseTTL, grace)
	c := client(t, r.URL)
	dir := t.TempDir()
	logs := map[string]string{"K": filepath.Join(dir, "K.exec")}
	k := startProviderProc(t, "K", r.URL, "r1", 2, logs["K"])
	execP, logP := newExecLog(t, dir, "P")
	logs["P"] = logP
	registrytest.Serve(t, client(t, r.URL), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 2, Provider: "P", DrainTimeout: drainTimeout,
	}, execP)
	ts := registrytest.WaitProviders(t, c, "echo", 2)
	direct := b.readStore(t, "")
	leaseOf := leasesByProvider(t, direct)
	if leaseOf["K"] == "" || leaseOf["P"] == "" {
		t.Fatalf("leases by provider: %v", leaseOf)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	wait := fire(ctx, c, ts.Token, callIDs("call", 4), "slow", `{"millis":3000}`, 30*time.Second)
	waitLines(t, logs["K"], 2, 10*time.Second)
	waitLines(t, logs["P"], 2, 10*time.Second)

	recovered := proxy.refuseFor(outage)
	time.Sleep(time.Second)
	k.kill()
	time.Sleep(time.Until(recovered))

	// Renewed at recovery: live again, with a full TTL from then.
	var renewed store.Lease
	eventually(t, 5*time.Second, "K's lease renewed after the outage", func() bool {
		cat, err := direct.Catalog(ctx)
		if err != nil {
			return false
		}
		for _, l := range cat.Leases {
			if l.ID == leaseOf["K"] {
				renewed = l
				return true
			}
		}
		return false
	})
	if renewed.ExpiresAt.Before(recovered.Add(leaseTTL - 50*time.Millisecond)) {
		t.Errorf("K's lease expires at %s, before a full TTL after the outage ended (%s)", renewed.ExpiresAt.Format("15:04:05.000"), recovered.Format("15:04:05.000"))
	}
	results := wait()
	runs := executions(t, logs)
	checkExecutions(t, runs, results)
	for _, res := range results {
		rec := recordOf(t, direct, res.id)
		switch {
		case rec.LeaseID == leaseOf["K"]:
			after := rec.SettledAt.Sub(recovered)
			switch {
			case res.name != registry.ErrOutcomeUnknown || rec.Outcome != store.OutcomeUnknown:
				t.Errorf("%v: record %s: want outcome_unknown, its provider died", res, describe(rec))
			case runs[res.id]["P"] != 0:
				t.Errorf("%v: re-run on P", res)
			case after < leaseTTL-50*time.Millisecond || after > leaseTTL+3*time.Second:
				t.Errorf("%v: settled %s after the outage ended, want a TTL (%s) after it", res, after.Round(time.Millisecond), leaseTTL)
			default:
				t.Logf("%v: settled %s after the outage ended", res, after.Round(time.Millisecond))
			}
		case rec.LeaseID == leaseOf["P"]:
			if res.name != "ok" || rec.Outcome != store.OutcomeOK || runs[res.id]["P"] != 1 {
				t.Errorf("%v: record %s, ran %v: want ok on P", res, describe(rec), runs[res.id])
			}
		default:
			t.Errorf("%v: record %s: published to neither lease", res, describe(rec))
		}
	}
	if leases := leaseIDsOf(t, direct); !slices.Equal(leases, []string{leaseOf["P"]}) {
		t.Errorf("leases at the end %v, want only P's %s", leases, leaseOf["P"])
	}
	t.Logf("outcomes: %s", tally(results))
}

// leasesByProvider maps each live lease's provider to its id.
func leasesByProvider(t *testing.T, st store.Store) map[string]string {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, l := range cat.Leases {
		out[l.Provider] = l.ID
	}
	return out
}

// leaseIDsOf lists the live leases' ids, sorted.
func leaseIDsOf(t *testing.T, st store.Store) []string {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range cat.Leases {
		ids = append(ids, l.ID)
	}
	slices.Sort(ids)
	return ids
}
