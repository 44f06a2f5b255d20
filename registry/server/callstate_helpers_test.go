package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/toolcall"
)

// answer is a call's outcome or error.
type answer struct {
	out *gen.CallOutcome
	err error
}

// async calls in the background.
func async(c *registry.Client, toolset, tool, token, id, payload string, timeout time.Duration) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		out, err := registrytest.Call(c, toolset, tool, token, id, payload, timeout)
		ch <- answer{out, err}
	}()
	return ch
}

// wantName fails unless err is the registry error name.
func wantName(t *testing.T, err error, name string) {
	t.Helper()
	if got := registry.ErrorName(err); got != name {
		t.Fatalf("error %v (name %q), want %q", err, got, name)
	}
}

// wantRecord fails unless call id's record has that state and outcome.
func wantRecord(t *testing.T, r *registrytest.Registry, id string, state store.CallState, outcome store.Outcome) store.Call {
	t.Helper()
	c, err := r.Store.GetCall(context.Background(), id)
	if err != nil {
		t.Fatalf("call %s: %v", id, err)
	}
	if c.State != state || c.Outcome != outcome {
		t.Fatalf("call %s: state %s outcome %q, want %s %q", id, c.State, c.Outcome, state, outcome)
	}
	return c
}

// noRecord fails when call id has a record.
func noRecord(t *testing.T, r *registrytest.Registry, id string) {
	t.Helper()
	if _, err := r.Store.GetCall(context.Background(), id); err == nil {
		t.Fatalf("call %s was recorded", id)
	}
}

// eventually polls cond for up to 10s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// setup starts a registry with one provider of Echo("echo") run by exec.
func setup(t *testing.T, o registrytest.Options, exec toolcall.Executor, maxInFlight int) (*registrytest.Registry, *registry.Client, *gen.ResolvedToolset, func() error) {
	t.Helper()
	r := registrytest.Start(t, o)
	c := r.Client(t, "")
	stop := registrytest.Serve(t, c, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: maxInFlight}, exec)
	ts := registrytest.WaitProviders(t, c, "echo", 1)
	return r, c, ts, stop
}

func unregister(name string) *gen.UnregisterPayload { return &gen.UnregisterPayload{Name: name} }
