package faulttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// acceptThenDie is a store whose AcceptCall of one call id records the
// call and then fails, as if the registry process died right after the
// write: the server neither offers the call to its bus nor waits for it.
type acceptThenDie struct {
	store.Store
	id string
}

func (s *acceptThenDie) AcceptCall(ctx context.Context, call store.Call, assignTo string) (store.Call, bool, error) {
	rec, created, err := s.Store.AcceptCall(ctx, call, assignTo)
	if err == nil && call.ID == s.id {
		return store.Call{}, false, errors.New("faulttest: the registry died after this write")
	}
	return rec, created, err
}

// Row 12 of the call-state table (docs/registry.md): accepted × the
// registry restarts → still accepted, routed again after the restart.
//
// Seen in TestRegistryKilledAndRestartedMidLoad/redis: a registry killed
// between recording a call (store.AcceptCall) and offering it to its bus
// (Bus.Offer) leaves the call only in the store. The registry here records
// the call "victim" (no provider stream is connected, so the call is
// accepted, not published) and dies before the offer; a registry starts
// on the same data (the same folder, or the same Redis and prefix) and a
// provider with room connects to it; then (once the call left the
// accepted state, or after 1s) the consumer retries with the same call id.
//
// Expected: the call runs once and ends ok at once, well before its 3s
// deadline: the restarted registry offers every accepted call again at
// start (server.New's recover), on the embedded store's local bus and on a
// shared bus alike (a call offered twice is published once). Found with
// this test: on a shared bus recover used to offer none (the bus was
// assumed to hold them all), so the call waited for the maintenance
// sweep's re-offer, 5s later, and its consumer read call_not_admitted at
// its deadline although a provider with room was connected the whole
// time.
func TestCallAcceptedBeforeTheRegistryDiedIsRoutedWhenItRestarts(t *testing.T) {
	t.Parallel()
	eachStore(t, callAcceptedBeforeTheRegistryDiedIsRoutedWhenItRestarts)
}

func callAcceptedBeforeTheRegistryDiedIsRoutedWhenItRestarts(t *testing.T, b *backend) {
	const id, payload, timeout = "victim", `{"text":"x"}`, 3 * time.Second
	dir := t.TempDir()
	first := startFaultRegistryIn(t, b, dir, 5*time.Second, time.Second, func(s store.Store) store.Store {
		return &acceptThenDie{Store: s, id: id}
	})
	raw := registrytest.Register(t, client(t, first.URL), registrytest.Echo("echo"), "r1", 4, false)
	token := raw.Lease.Token
	_, err := registrytest.Call(client(t, first.URL), "echo", "echo", token, id, payload, timeout)
	if registry.ErrorName(err) != registry.ErrUnavailable {
		t.Fatalf("the first attempt: %v, want unavailable (the registry died after recording the call)", err)
	}
	if rec := recordOf(t, first.Store, id); rec.State != store.CallAccepted {
		t.Fatalf("the record is %s, want accepted", rec.State)
	}
	first.Close()

	second := startFaultRegistryIn(t, b, dir, 5*time.Second, time.Second, nil)
	exec, logPath := newExecLog(t, t.TempDir(), "p")
	registrytest.Serve(t, client(t, second.URL), registry.Registration{
		Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 4, Provider: "p", DrainTimeout: drainTimeout,
	}, exec)
	c := client(t, second.URL)
	registrytest.WaitProviders(t, c, "echo", 2) // the lease of the first attempt's registration, and p's
	// Before the consumer retries (a retry offers an accepted call again
	// too): the restarted registry routes the call by itself.
	deadline := time.Now().Add(time.Second)
	for recordOf(t, second.Store, id).State == store.CallAccepted && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if rec := recordOf(t, second.Store, id); rec.State == store.CallAccepted {
		t.Errorf("the call is still accepted 1s after the restarted registry's provider connected: the restart did not route it again")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res := callUntilFinal(ctx, c, "echo", token, id, payload, timeout)
	runs := executions(t, map[string]string{"p": logPath})
	checkExecutions(t, runs, []result{res})
	if res.name != "ok" || res.took > time.Second {
		rec := recordOf(t, second.Store, id)
		t.Errorf("%v; record %s %s (%s), ran %d times: want ok at once: the restarted registry has a provider with room, and the call was accepted, never offered to a provider",
			res, rec.State, rec.Outcome, rec.Error, total(runs[id]))
	}
}
