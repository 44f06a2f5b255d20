package faulttest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
)

// acceptHook is a store that runs a function right after AcceptCall has
// recorded a call and before the server hears back: as if the server's
// goroutine were descheduled there, while other requests go on.
type acceptHook struct {
	store.Store
	once  sync.Once
	id    string
	after func()
}

func (h *acceptHook) AcceptCall(ctx context.Context, call store.Call, assignTo string) (store.Call, bool, error) {
	rec, created, err := h.Store.AcceptCall(ctx, call, assignTo)
	if err == nil && created && call.ID == h.id {
		h.once.Do(h.after)
	}
	return rec, created, err
}

// A call that settles right after it was recorded, before the server
// starts waiting for it, is answered at once, not at its deadline.
//
// Seen under load in TestProviderReplacedDuringCalls: calls queued with
// r1's token that the replacement settled call_not_admitted were answered
// only at their 10s deadline. Here the call is accepted (its provider has
// no stream, so it is queued) and the toolset is unregistered (row 11:
// call_not_admitted) between AcceptCall's commit and the server's next
// step.
//
// Expected: call_not_admitted, well before the 3s deadline.
func TestCallSettledBeforeItIsAwaitedIsAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	eachStore(t, callSettledBeforeItIsAwaitedIsAnsweredAtOnce)
}

func callSettledBeforeItIsAwaitedIsAnsweredAtOnce(t *testing.T, b *backend) {
	hook := &acceptHook{id: "victim"}
	r := startFaultRegistryOn(t, b, 5*time.Second, time.Second, func(s store.Store) store.Store {
		hook.Store = s
		return hook
	})
	c := client(t, r.URL)
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	hook.after = func() {
		if err := c.Unregister(context.Background(), &gen.UnregisterPayload{Name: "echo"}); err != nil {
			t.Errorf("unregister: %v", err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res := callUntilFinal(ctx, c, "echo", p.Lease.Token, "victim", `{"text":"x"}`, 3*time.Second)
	if res.name != registry.ErrCallNotAdmitted {
		t.Fatalf("%v: want call_not_admitted", res)
	}
	if rec := recordOf(t, r.Store, "victim"); rec.Outcome != store.OutcomeCallNotAdmitted {
		t.Fatalf("record %s %s", rec.State, rec.Outcome)
	}
	if res.took > time.Second {
		t.Errorf("%v: the call was settled before the server waited for it, and its consumer heard only at its deadline", res)
	}
}
