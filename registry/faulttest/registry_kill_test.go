package faulttest

import (
	"context"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// Scenario 2: the registry process is killed (SIGKILL) mid-load and
// restarted on its data and port: on its data folder (bolt), or on the
// same Redis and prefix (redis: the data is in Redis, the node process is
// what dies).
//
// The registry is a process on a fixed loopback port with a 10s lease (the
// outage must stay shorter than what is left of the providers' leases,
// else the restarted registry ends them and their published calls settle
// outcome_unknown: see TestRegistryDownLongerThanTheLeaseTTL); two
// providers run in this process (room for 4 calls each) and reconnect
// their streams. 40 slow calls (300ms) are fired; once 6 have started, the
// registry is killed, stays down 300ms, and a new registry process starts
// on the same folder and port.
//
// Expected: every call ends ok and ran exactly once. Calls accepted before
// the kill are routed again after the restart; calls published before it
// keep their provider, which posts after the restart (retrying through the
// outage); consumers whose connection broke retry with the same call id
// and token and read the recorded outcome. The catalog and the
// registration are back: ResolveToolset gives the same token, both leases
// are live.
//
// One exception is inherent to the design, not a fault: a call whose
// publication was made durable just before the kill, but whose frame had
// not reached its provider yet, cannot be told apart from one the provider
// received, so the restarted registry keeps it published and never hands
// it to anyone again; its consumer reads outcome_unknown at its deadline
// (6s), and the record stays published until the providers release their
// leases at the end of the test (then it settles outcome_unknown). The
// test allows that only for a call that never ran and that the store shows
// published before the kill (it reads the store file once the second
// registry is gone), and logs it. On a loaded machine it happens in about
// one run in ten.
//
// On Redis, the kill often comes while the first calls are being
// accepted: calls the killed node recorded but had not offered to the bus
// yet. The restarted node offers every accepted call again at start (a
// call offered twice is published once), so they end ok like the others
// (TestCallAcceptedBeforeTheRegistryDiedIsRoutedWhenItRestarts pins it).
func TestRegistryKilledAndRestartedMidLoad(t *testing.T) {
	t.Parallel()
	eachStore(t, registryKilledAndRestartedMidLoad)
}

func registryKilledAndRestartedMidLoad(t *testing.T, b *backend) {
	dir, data := t.TempDir(), t.TempDir()
	addr := registrytest.FreeAddr(t)
	url := "http://" + addr
	const leaseTTL, grace = 10 * time.Second, 5 * time.Second
	first := startRegistryProc(t, b, "registry-1", addr, data, leaseTTL, grace)

	logs := map[string]string{}
	var stops []func() error
	for _, name := range []string{"P1", "P2"} {
		exec, path := newExecLog(t, dir, name)
		logs[name] = path
		stops = append(stops, registrytest.Serve(t, client(t, url), registry.Registration{
			Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 4, Provider: name, DrainTimeout: drainTimeout,
		}, exec))
	}
	// The providers stop (drain, release) while the second registry runs:
	// cleanups run in reverse order and would kill it first.
	stopProviders := func() {
		for _, stop := range stops {
			_ = stop()
		}
	}
	defer stopProviders()
	c := client(t, url)
	ts := registrytest.WaitProviders(t, c, "echo", 2)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wait := fire(ctx, c, ts.Token, callIDs("call", 40), "slow", `{"millis":300}`, 6*time.Second)
	eventually(t, 10*time.Second, "6 calls started", func() bool {
		return total(countLines(t, logs)) >= 6
	})
	first.kill()
	// The registry is gone: nothing it wrote is later than this.
	killedAt := time.Now()
	startedAtKill := total(countLines(t, logs))
	time.Sleep(300 * time.Millisecond)
	second := startRegistryProc(t, b, "registry-2", addr, data, leaseTTL, grace)
	restartedAt := time.Now()
	results := wait()

	runs := executions(t, logs)
	checkExecutions(t, runs, results)
	retried := 0
	for _, res := range results {
		if res.attempts > 1 {
			retried++
		}
	}
	if retried == 0 {
		t.Error("no consumer had to retry: the kill did not interrupt any call")
	}
	t.Logf("%d calls had started when the registry was killed; %d consumers retried through the outage of %s", startedAtKill, retried, restartedAt.Sub(killedAt).Round(time.Millisecond))

	again, err := c.ResolveToolset(context.Background(), &gen.ResolveToolsetPayload{Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Toolset.Token != ts.Token || again.Toolset.Revision != "r1" {
		t.Errorf("after the restart: revision %s token %s, want r1 %s", again.Toolset.Revision, again.Toolset.Token, ts.Token)
	}
	list, err := c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
	if err != nil || len(list.Toolsets) != 1 || list.Toolsets[0].Providers != 2 {
		t.Errorf("after the restart: %+v %v, want echo with 2 providers", list, err)
	}

	// Read every record from the store itself.
	stopProviders()
	second.kill()
	st := b.readStore(t, data)
	for _, res := range results {
		rec, err := st.GetCall(context.Background(), res.id)
		switch {
		case err != nil:
			t.Errorf("%v: no record: %v", res, err)
		case res.name == "ok":
			if rec.State != store.CallSettled || rec.Outcome != store.OutcomeOK {
				t.Errorf("%v: record %s %s", res, rec.State, rec.Outcome)
			}
		case res.name == registry.ErrOutcomeUnknown && total(runs[res.id]) == 0 &&
			!rec.PublishedAt.IsZero() && rec.PublishedAt.Before(killedAt) &&
			(rec.State == store.CallPublished || rec.Outcome == store.OutcomeUnknown):
			t.Logf("%v: published at %s, %s before the kill, never reached its provider (the crash window the design accepts)",
				res.id, rec.PublishedAt.Format("15:04:05.000"), killedAt.Sub(rec.PublishedAt).Round(time.Microsecond))
		default:
			t.Errorf("%v: want ok; record %s %s on lease %s, accepted at %s, published at %s (killed at %s), ran %v",
				res, rec.State, rec.Outcome, rec.LeaseID, rec.AcceptedAt.UTC().Format("15:04:05.000"), rec.PublishedAt.Format("15:04:05.000"), killedAt.UTC().Format("15:04:05.000"), runs[res.id])
		}
	}
}

// countLines counts each execution log's lines.
func countLines(t *testing.T, logs map[string]string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for name, path := range logs {
		n[name] = len(readLines(t, path))
	}
	return n
}

// A registry process killed and kept down longer than the lease TTL, then
// restarted on its data folder. The provider is alive the whole time: it
// holds a published call, runs it and posts its outcome once the registry
// is back.
//
// docs/registry.md: "A registry killed at any point restarts with all of
// it: accepted calls are routed again, published ones wait for their
// provider"; row 17: published × the registry restarts → still published,
// the provider posts to the restarted registry.
//
// Expected: the call ends ok (its consumer retries with the same call id
// through the outage). Today the restarted registry ends the provider's
// lease at once (server.New calls ExpireLeases: the lease's expiry passed
// while nobody could renew it), settles the call outcome_unknown, and the
// provider's post is answered with that record as if it had been recorded.
func TestRegistryDownLongerThanTheLeaseTTL(t *testing.T) {
	t.Parallel()
	eachStore(t, registryDownLongerThanTheLeaseTTL)
}

func registryDownLongerThanTheLeaseTTL(t *testing.T, b *backend) {
	dir, data := t.TempDir(), t.TempDir()
	addr := registrytest.FreeAddr(t)
	url := "http://" + addr
	const leaseTTL, grace = time.Second, 5 * time.Second
	first := startRegistryProc(t, b, "registry-1", addr, data, leaseTTL, grace)
	exec, logPath := newExecLog(t, dir, "P")
	stop := registrytest.Serve(t, client(t, url), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 4, Provider: "P", DrainTimeout: drainTimeout,
	}, exec)
	// The provider stops (its call posted) while the second registry runs.
	defer func() { _ = stop() }()
	c := client(t, url)
	ts := registrytest.WaitProviders(t, c, "echo", 1)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wait := fire(ctx, c, ts.Token, []string{"long"}, "slow", `{"millis":3000}`, 15*time.Second)
	waitLines(t, logPath, 1, 10*time.Second)
	first.kill()
	time.Sleep(3 * leaseTTL / 2)
	startRegistryProc(t, b, "registry-2", addr, data, leaseTTL, grace)
	res := wait()[0]
	if res.name != "ok" {
		t.Errorf("%v: want ok: the provider was alive, ran the call and posted it after the restart", res)
	}
	if runs := executions(t, map[string]string{"P": logPath}); total(runs["long"]) != 1 {
		t.Errorf("long ran %v", runs["long"])
	}
}
