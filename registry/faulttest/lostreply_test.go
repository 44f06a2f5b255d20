package faulttest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// A call published by a write whose reply was lost (Redis ran it and died
// before it answered; go-redis's retries found it down) must still reach
// its provider or go back to accepted: its frame was never written.
//
// Seen in TestRedisRestartMidLoad. Here one registry node runs on Redis
// through a proxy (redisProxy) that passes on the write publishing the
// call "victim", swallows its reply, cuts every connection and refuses
// new ones for 1s (go-redis gives up on the command after about half of
// that; with 200ms, its retry gets through and the store answers it as
// the first run, by the run's nonce: then the call ends ok). A provider with its stream on the node logs its
// executions. Two ways a call is published:
//
//   - accept: the provider has room, so the call is accepted and
//     published to its lease in one write (store.AcceptCall with
//     assignTo);
//   - publish: the provider is busy (room for 1, a 600ms call in hand), so
//     the call is accepted, queued on the bus, and published when the
//     provider has room (store.PublishCall, dispatch.go's publishTaken).
//
// Expected: the call runs once and ends ok (its consumer retries with the
// same call id through unavailable, and its deadline, 4s, leaves time):
// the node reads the record back once Redis answers and writes the frame
// of the call it published (server's afterLostWrite). Found with this
// test: the node used to take the write's error for "not published", and
// neither wrote the frame nor took the call back, so the record stayed
// published to a live lease that never heard of it; the call never ran
// and its consumer read outcome_unknown at its deadline.
func TestPublicationWhoseReplyWasLostStillReachesTheProvider(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"accept", "publish"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			publicationWhoseReplyWasLost(t, how)
		})
	}
}

func publicationWhoseReplyWasLost(t *testing.T, how string) {
	b := newRedisBackend(t, false)
	proxy := startRedisProxy(t, b.redis.Addr)
	b.via = proxy.URL()
	r := startFaultRegistry(t, b, 5*time.Second, time.Second)
	c := client(t, r.URL)
	room := 4
	if how == "publish" {
		room = 1
	}
	exec, logPath := newExecLog(t, t.TempDir(), "p")
	registrytest.Serve(t, client(t, r.URL), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: room, Provider: "p", DrainTimeout: drainTimeout,
	}, exec)
	ts := registrytest.WaitProviders(t, c, "echo", 1)
	direct := b.readStore(t, "")
	cat, err := direct.Catalog(context.Background())
	if err != nil || len(cat.Leases) != 1 {
		t.Fatalf("catalog: %+v %v", cat, err)
	}
	lease := cat.Leases[0].ID
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()

	waitBlocker := func() []result { return nil }
	if how == "publish" {
		waitBlocker = fire(ctx, c, ts.Token, []string{"blocker"}, "slow", `{"millis":600}`, 6*time.Second)
		waitLines(t, logPath, 1, 5*time.Second)
	}
	proxy.arm(time.Second, "victim", lease)
	wait := fire(ctx, c, ts.Token, []string{"victim"}, "echo", `{"text":"x"}`, 4*time.Second)
	select {
	case <-proxy.Fired():
	case <-ctx.Done():
		t.Fatal("the write publishing the call never went through the proxy")
	}
	res := wait()[0]
	rec := recordOf(t, direct, "victim")
	runs := executions(t, map[string]string{"p": logPath})
	checkExecutions(t, runs, append(waitBlocker(), res))
	if res.name != "ok" {
		mine := "the provider's lease"
		if rec.LeaseID != lease {
			mine = "not the provider's lease"
		}
		t.Errorf("%v; ran %d times; record %s (%s): want ok: the provider was alive with room, and the call's frame was never written",
			res, total(runs["victim"]), describe(rec), mine)
	}
}

// describe renders a call record's state for a failure message.
func describe(c store.Call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", c.State)
	if c.Outcome != "" {
		fmt.Fprintf(&b, " %s", c.Outcome)
	}
	if c.LeaseID != "" {
		fmt.Fprintf(&b, " lease %s", c.LeaseID)
	}
	if !c.PublishedAt.IsZero() {
		fmt.Fprintf(&b, " published %s", c.PublishedAt.UTC().Format("15:04:05.000"))
	}
	return b.String()
}

// After a write whose answer was lost, the node reads the call's record
// back (afterLostWrite) and writes the frame of a call it finds published
// to the lease it chose. That frame must be the only one the provider
// gets: the call may have been published meanwhile by a later write,
// whose frame was written.
//
// Nodes A and B share Redis; B reaches it through a proxy, and the
// provider's stream is on B (room for 4). The consumer calls "victim"
// (slow, 2s) through B: B accepts and publishes it to the provider's lease
// in one write (AcceptCall), and the proxy cuts that write before it
// reaches Redis: nothing is recorded, the consumer reads unavailable, and
// B starts reading the record back — which the proxy keeps failing (it
// cuts every read of the call's record from B). The consumer retries
// through A: A records the call and offers it; B's puller takes it,
// publishes it to the lease and writes its frame; the provider starts it.
// Then B's reads get through again.
//
// Expected: the call runs once and ends ok. B's read finds the call
// published to the lease it had chosen; were B to write its frame again
// (hold() must say no: the router holds the call already), the provider
// would get two frames of one call and run it twice.
func TestReadBackAfterALostWriteDoesNotDeliverACallTwice(t *testing.T) {
	t.Parallel()
	b := newRedisBackend(t, false)
	proxy := startRedisProxy(t, b.redis.Addr)
	viaProxy := *b
	viaProxy.via = proxy.URL()
	nodeB := startFaultRegistry(t, &viaProxy, 5*time.Second, time.Second)
	nodeA := startFaultRegistry(t, b, 5*time.Second, time.Second)
	exec, logPath := newExecLog(t, t.TempDir(), "p")
	registrytest.Serve(t, client(t, nodeB.URL), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 4, Provider: "p", DrainTimeout: drainTimeout,
	}, exec)
	a, bc := client(t, nodeA.URL), client(t, nodeB.URL)
	ts := registrytest.WaitProviders(t, a, "echo", 1)
	// The lease being listed does not mean B holds the provider's stream
	// yet; until it does, B accepts a call without publishing it in the
	// same write, and the cut below would not apply. A call run through B
	// proves the stream is there.
	if out, err := registrytest.Call(bc, "echo", "echo", ts.Token, "warm-up", `{"text":"w"}`, 10*time.Second); err != nil || out.Outcome != "ok" {
		t.Fatalf("warm-up call through B: %+v %v", out, err)
	}
	direct := b.readStore(t, "")
	cat, err := direct.Catalog(context.Background())
	if err != nil || len(cat.Leases) != 1 {
		t.Fatalf("catalog: %+v %v", cat, err)
	}
	lease := cat.Leases[0].ID

	// The write accepting and publishing the call is cut (with go-redis's
	// retries of it: the digest argument, "sha256v2:…", marks the
	// accepting write); from then on, B's reads of the call's record are,
	// until the gate opens. B publishes in the accepting write only while
	// it holds the stream with room; when it does not (a reconnecting
	// stream under load), it accepts the call without publishing it, the
	// cut does not apply and the call runs through the queue: the setup
	// is tried again under a new call id.
	const payload, timeout = `{"millis":2000}`, 8 * time.Second
	var victim string
	var readBack *blockRule
	for attempt := 0; ; attempt++ {
		if attempt == 3 {
			t.Fatal("B never published a call in the write accepting it (three tries)")
		}
		victim = fmt.Sprintf("victim%d", attempt)
		accept := proxy.rule(true, victim, lease, "sha256v2:")
		readBack = proxy.rule(false, "call:"+victim)
		accept.onMatch = func() { readBack.active = true }
		readBack.onMatch = func() { accept.active = false }
		_, err = registrytest.Call(bc, "echo", "slow", ts.Token, victim, payload, timeout)
		if registry.ErrorName(err) == registry.ErrUnavailable {
			break
		}
		if err != nil {
			t.Fatalf("through B: %v, want unavailable (the write was cut)", err)
		}
		proxy.setActive(accept, false)
		proxy.setActive(readBack, false)
		t.Logf("try %d: B queued the call instead of publishing it in the accepting write; again", attempt)
	}
	eventually(t, 5*time.Second, "B reading the call's record back", func() bool { return proxy.matched(readBack) > 0 })
	if _, err := direct.GetCall(context.Background(), victim); !errors.Is(err, store.ErrUnknownCall) {
		t.Fatalf("the cut write recorded the call: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	wait := fire(ctx, a, ts.Token, []string{victim}, "slow", payload, timeout)
	eventually(t, 5*time.Second, "the provider starting "+victim, func() bool {
		return total(executions(t, map[string]string{"p": logPath})[victim]) > 0
	})
	proxy.setActive(readBack, false)
	gateOpened := time.Now()
	res := wait()[0]
	// B's read back retries at most every second: it has read the record
	// by now.
	time.Sleep(time.Until(gateOpened.Add(1500 * time.Millisecond)))
	runs := executions(t, map[string]string{"p": logPath})
	frames := 0
	for _, ev := range nodeB.Net.Events() {
		if ev == victim {
			frames++
		}
	}
	if res.name != "ok" || total(runs[victim]) != 1 || frames != 1 {
		t.Errorf("%v; ran %d times, B wrote %d frames of it to the provider's stream (B's reads of the record were cut %d times): want ok, one frame, run once",
			res, total(runs[victim]), frames, proxy.matched(readBack))
	}
}
