package faulttest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// Scenario 3: a provider is replaced by a new revision while consumers
// call it.
//
// Provider r1 runs in this process (room for 4 calls of 150ms); 6
// consumers call it in a loop with r1's token, so calls are always queued.
// Provider r2, a process serving revision "r2", then registers: r2 is
// pending and r1 is told to drain.
//
// Expected: r1's Serve returns registry.ErrReplaced; the calls published
// to r1 end ok on r1; the calls still queued with r1's token when r2
// becomes active end call_not_admitted and never run; new calls with r1's
// token are refused with admission_conflict (nothing recorded); a consumer
// that resolves the toolset again gets r2's token and its calls end ok on
// r2. Nothing runs twice.
//
// Every answer here is final: no consumer's deadline (5s) passes. One
// known bug is tolerated and logged (see the comment where it is).
func TestProviderReplacedDuringCalls(t *testing.T) {
	t.Parallel()
	eachStore(t, providerReplacedDuringCalls)
}

func providerReplacedDuringCalls(t *testing.T, b *backend) {
	dir := t.TempDir()
	r := b.start(t, registrytest.Options{LeaseTTL: 5 * time.Second})
	c := r.Client(t, "")
	exec1, log1 := newExecLog(t, dir, "r1")
	stop1 := registrytest.Serve(t, r.Client(t, ""), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 4, Provider: "r1", DrainTimeout: drainTimeout,
	}, exec1)
	ts1 := registrytest.WaitProviders(t, c, "echo", 1)

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	const consumers, wantOnR2 = 6, 3
	var mu sync.Mutex
	var results []result
	staleResolves := 0
	var wg sync.WaitGroup
	for g := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token, onR2 := ts1.Token, 0
			for n := 0; onR2 < wantOnR2 && ctx.Err() == nil; n++ {
				res := callUntilFinal(ctx, c, "slow", token, fmt.Sprintf("c%d-%03d", g, n), `{"millis":150}`, 5*time.Second)
				mu.Lock()
				results = append(results, res)
				mu.Unlock()
				switch {
				case res.name == registry.ErrAdmissionConflict:
					ts, err := c.ResolveToolset(ctx, &gen.ResolveToolsetPayload{Name: "echo"})
					if err != nil {
						t.Errorf("consumer %d: resolve: %v", g, err)
						return
					}
					if ts.Toolset.Token == token {
						// The store refused the call (r1 is replaced
						// there) before the registry's catalog view, which
						// ResolveToolset reads, caught up: the resolution
						// is stale for a moment. Counted and logged.
						mu.Lock()
						staleResolves++
						mu.Unlock()
						time.Sleep(10 * time.Millisecond)
					}
					token = ts.Toolset.Token
				case res.name == "ok" && token != ts1.Token:
					onR2++
				}
			}
		}()
	}
	waitLines(t, log1, 8, 10*time.Second)
	log2 := filepath.Join(dir, "r2.exec")
	startProviderProc(t, "r2", r.URL, "r2", 4, log2)
	wg.Wait()
	if err := stop1(); !errors.Is(err, registry.ErrReplaced) {
		t.Errorf("r1's Serve returned %v, want ErrReplaced", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the consumers did not finish: %s", tally(results))
	}
	ts2, err := c.ResolveToolset(context.Background(), &gen.ResolveToolsetPayload{Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if ts2.Toolset.Revision != "r2" || ts2.Toolset.Token == ts1.Token {
		t.Fatalf("resolved %s %s, want r2 with a new token", ts2.Toolset.Revision, ts2.Toolset.Token)
	}

	logs := map[string]string{"r1": log1, "r2": log2}
	runs := executions(t, logs)
	checkExecutions(t, runs, results)
	count := map[string]int{}
	for _, res := range results {
		rev := "r1"
		if res.token == ts2.Toolset.Token {
			rev = "r2"
		}
		count[rev+" "+res.name]++
		rec, recErr := r.Store.GetCall(context.Background(), res.id)
		switch {
		case res.name == "ok":
			if runs[res.id][rev] != 1 {
				t.Errorf("%v: ok with %s's token, but ran %v", res, rev, runs[res.id])
			}
			if recErr != nil || rec.Outcome != store.OutcomeOK {
				t.Errorf("%v: record %+v %v", res, rec, recErr)
			}
		case rev == "r1" && res.name == registry.ErrCallNotAdmitted:
			if total(runs[res.id]) != 0 {
				t.Errorf("%v: ran %v", res, runs[res.id])
			}
			if recErr != nil || rec.Outcome != store.OutcomeCallNotAdmitted {
				t.Errorf("%v: record %+v %v", res, rec, recErr)
			}
		case rev == "r1" && res.name == registry.ErrOutcomeUnknown && total(runs[res.id]) == 0:
			// A call published to r1 whose frame the registry wrote after
			// the drain frame: r1 never reads it and it settles
			// outcome_unknown when r1 releases its lease. That is a bug
			// (TestDrainFrameDoesNotOvertakeQueuedCalls shows it every
			// time); it happens here now and then, so it is logged, not
			// failed, to keep this scenario's other checks reliable.
			t.Logf("%v: published to r1, never ran (the drain-ordering bug)", res)
		case rev == "r1" && res.name == registry.ErrAdmissionConflict:
			if total(runs[res.id]) != 0 || !errors.Is(recErr, store.ErrUnknownCall) {
				t.Errorf("%v: ran %v, record %+v %v: want nothing run or recorded", res, runs[res.id], rec, recErr)
			}
		default:
			t.Errorf("%v with %s's token: unexpected", res, rev)
		}
	}
	for _, res := range results {
		if res.took > 3*time.Second {
			// A call settled before the server waited for it is answered
			// only at its deadline: TestCallSettledBeforeItIsAwaitedIsAnsweredAtOnce.
			t.Logf("answered at its deadline (the lost-wakeup bug): %v", res)
		}
	}
	t.Logf("outcomes by revision: %v; %d resolutions right after an admission_conflict still gave r1's token", count, staleResolves)
	for _, want := range []string{"r1 ok", "r1 " + registry.ErrCallNotAdmitted, "r1 " + registry.ErrAdmissionConflict, "r2 ok"} {
		if count[want] == 0 {
			t.Errorf("no call ended %q", want)
		}
	}
	if count["r2 ok"] != consumers*wantOnR2 {
		t.Errorf("%d calls ok on r2, want %d", count["r2 ok"], consumers*wantOnR2)
	}
}

// A provider told to drain (replaced by a new revision, or stopped) keeps
// serving the calls in its hand until they finish and post. Those calls
// must end ok, however long they take within their deadline and the drain
// timeout: the provider is alive and posts.
//
// The registry's lease is 1s; a call of 2.5s is in the provider's hand
// when it starts draining.
func TestDrainingProviderKeepsItsLease(t *testing.T) {
	t.Parallel()
	eachStore(t, drainingProviderKeepsItsLease)
}

func drainingProviderKeepsItsLease(t *testing.T, b *backend) {
	for _, how := range []string{"replaced", "stopped"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			r := b.sub(how).start(t, registrytest.Options{LeaseTTL: time.Second})
			c := r.Client(t, "")
			exec, logPath := newExecLog(t, t.TempDir(), "r1")
			stop := registrytest.Serve(t, r.Client(t, ""), registry.Registration{
				Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 4, Provider: "r1", DrainTimeout: drainTimeout,
			}, exec)
			ts := registrytest.WaitProviders(t, c, "echo", 1)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			wait := fire(ctx, c, ts.Token, []string{"long"}, "slow", `{"millis":2500}`, 8*time.Second)
			waitLines(t, logPath, 1, 5*time.Second)

			stopped := make(chan error, 1)
			want := error(nil)
			switch how {
			case "replaced":
				want = registry.ErrReplaced
				registrytest.Serve(t, r.Client(t, ""), registry.Registration{
					Toolset: registrytest.Echo("echo"), Revision: "r2", MaxInFlight: 4, Provider: "r2", DrainTimeout: drainTimeout,
				}, registrytest.NewCounter())
			case "stopped":
				go func() { stopped <- stop() }()
			}
			res := wait()[0]
			if res.name != "ok" {
				rec, _ := r.Store.GetCall(context.Background(), "long")
				t.Errorf("%v; record %s %s (%s): the call was in the provider's hand when it started draining, it ran and posted, want ok", res, rec.State, rec.Outcome, rec.Error)
			}
			if how == "stopped" {
				err := <-stopped
				if err != want {
					t.Errorf("Serve returned %v, want %v", err, want)
				}
			} else if err := stop(); !errors.Is(err, want) {
				t.Errorf("Serve returned %v, want %v", err, want)
			}
			runs := executions(t, map[string]string{"r1": logPath})
			if total(runs["long"]) != 1 {
				t.Errorf("long ran %v", runs["long"])
			}
		})
	}
}

// Calls published to a provider before it is told to drain (a new
// revision registers) reach it and run: their frames are written before
// the drain frame, and the provider runs every call frame it receives.
//
// The registry's writes to r1's stream stall while 8 calls are published
// to r1 (one frame in the blocked write, seven queued); r2 registers,
// which drains r1; then the stream's writes resume.
//
// Expected: the 8 calls end ok on r1 (they were handed to r1 before the
// drain, and r1 is alive), r1's Serve returns ErrReplaced.
func TestDrainFrameDoesNotOvertakeQueuedCalls(t *testing.T) {
	t.Parallel()
	eachStore(t, drainFrameDoesNotOvertakeQueuedCalls)
}

func drainFrameDoesNotOvertakeQueuedCalls(t *testing.T, b *backend) {
	r := startFaultRegistry(t, b, 5*time.Second, time.Second)
	c := client(t, r.URL)
	exec1, log1 := newExecLog(t, t.TempDir(), "r1")
	stop1 := registrytest.Serve(t, client(t, r.URL), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 8, Provider: "r1", DrainTimeout: drainTimeout,
	}, exec1)
	ts := registrytest.WaitProviders(t, c, "echo", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// The lease is live before its stream connects: on a loaded machine
	// the stream may not be there yet.
	eventually(t, 5*time.Second, "r1's call stream connected", func() bool { return len(r.Net.streams()) == 1 })
	if n := r.Net.Stall(); n != 1 {
		t.Fatalf("%d stream connections, want 1", n)
	}
	ids := callIDs("handed", 8)
	wait := fire(ctx, c, ts.Token, ids, "echo", `{"text":"x"}`, 5*time.Second)
	eventually(t, 5*time.Second, "8 calls published to r1, one write blocked", func() bool {
		for _, id := range ids {
			rec, err := r.Store.GetCall(context.Background(), id)
			if err != nil || rec.State != store.CallPublished {
				return false
			}
		}
		return r.Net.Blocked() == 1
	})
	registrytest.Serve(t, client(t, r.URL), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r2", MaxInFlight: 8, Provider: "r2", DrainTimeout: drainTimeout,
	}, registrytest.NewCounter())
	eventually(t, 5*time.Second, "r1 draining", func() bool {
		cat, err := r.Store.Catalog(context.Background())
		if err != nil {
			return false
		}
		for _, l := range cat.Leases {
			if l.Provider == "r1" && l.State == store.LeaseDraining {
				return true
			}
		}
		return false
	})
	// The registry asks r1's stream to drain as it applies the
	// registration (before answering it); give it a moment.
	time.Sleep(100 * time.Millisecond)
	r.Net.Resume()

	results := wait()
	runs := executions(t, map[string]string{"r1": log1})
	checkExecutions(t, runs, results)
	for _, res := range results {
		if res.name != "ok" {
			rec := recordOf(t, r.Store, res.id)
			t.Errorf("%v: ran %d times, record %s %s (%s): want ok, it was published to r1 before r1 was told to drain", res, total(runs[res.id]), rec.State, rec.Outcome, rec.Error)
		}
	}
	if t.Failed() {
		t.Logf("events written to r1's stream, in order: %v", r.Net.Events())
	}
	if err := stop1(); !errors.Is(err, registry.ErrReplaced) {
		t.Errorf("r1's Serve returned %v, want ErrReplaced", err)
	}
}
