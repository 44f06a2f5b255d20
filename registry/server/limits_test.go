package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

const (
	limitOps   = "ops-key-0123456789"
	limitA     = "key-a-0123456789ab"
	limitB     = "key-b-0123456789ab"
	limitGrant = "key-grant-01234567"
)

func limitKeys(t *testing.T) *server.Keys {
	t.Helper()
	k, err := server.NewKeys(
		server.Key{Name: "ops", Key: limitOps, Role: server.RoleAdmin},
		server.Key{Name: "a", Key: limitA, Role: server.RoleConsumer},
		server.Key{Name: "b", Key: limitB, Role: server.RoleConsumer},
		server.Key{Name: "granted", Key: limitGrant, Role: server.RoleConsumer, Confirm: []string{"gated.*"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// holding blocks the calls whose text is "hold" at gate and echoes the
// others at once.
func holding(gate *registrytest.Gate) toolcall.Executor {
	return toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var in struct{ Text string }
		_ = json.Unmarshal(call.Payload, &in)
		if in.Text == "hold" {
			return gate.Execute(ctx, call)
		}
		return &toolcall.Result{Result: call.Payload}, nil
	})
}

// A key that fills its slots is refused at once with key_limit, nothing
// recorded, while another key's call runs; a call its caller abandoned
// keeps its slot until it settles; once A's calls settle, the refused call
// is admitted under the same call id.
func TestKeyLimitPerKey(t *testing.T) {
	gate := registrytest.NewGate()
	r := registrytest.Start(t, registrytest.Options{Keys: limitKeys(t), MaxCallsPerKey: 2})
	ops := r.Client(t, limitOps)
	registrytest.Serve(t, ops, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 8}, holding(gate))
	ts := registrytest.WaitProviders(t, ops, "echo", 1)
	a, b := r.Client(t, limitA), r.Client(t, limitB)

	first := async(a, "echo", "echo", ts.Token, "a1", `{"text":"hold"}`, 20*time.Second)
	<-gate.Started()
	// The second is abandoned by its caller once it runs: it still counts.
	ctx, cancel := context.WithCancel(context.Background())
	abandoned := make(chan error, 1)
	go func() {
		_, err := a.CallResolvedTool(ctx, &gen.CallResolvedToolPayload{Toolset: "echo", Tool: "echo", Token: ts.Token,
			CallID: "a2", Payload: json.RawMessage(`{"text":"hold"}`), TimeoutMs: 20000})
		abandoned <- err
	}()
	<-gate.Started()
	cancel()
	if err := <-abandoned; !errors.Is(err, context.Canceled) {
		t.Fatalf("abandoned call: %v", err)
	}

	_, err := registrytest.Call(a, "echo", "echo", ts.Token, "a3", `{"text":"x"}`, 20*time.Second)
	wantName(t, err, registry.ErrKeyLimit)
	noRecord(t, r, "a3")
	if out, err := registrytest.Call(b, "echo", "echo", ts.Token, "b1", `{"text":"x"}`, 20*time.Second); err != nil || out.Outcome != "ok" {
		t.Fatalf("key b's call: %v %+v", err, out)
	}
	// The refusal reaches a model as a retryable failure of its kind.
	call := &toolcall.Call{Ident: "echo.echo", Spec: tools.ToolSpec{Name: "echo.echo"}, Payload: json.RawMessage(`{"text":"x"}`)}
	res, err := registry.CallTool(context.Background(), a, ts.Token, "a3", call)
	if err != nil || res.Failure == nil || res.Failure.Code != toolcall.KindKeyLimit || res.Failure.Recovery != toolcall.RecoveryReplan {
		t.Fatalf("CallTool at the limit: %v %+v", err, res)
	}

	gate.Open()
	if ans := <-first; ans.err != nil || ans.out.Outcome != "ok" {
		t.Fatalf("a1: %+v", ans)
	}
	eventually(t, "a3 admitted once a1 and a2 settled", func() bool {
		out, err := registrytest.Call(a, "echo", "echo", ts.Token, "a3", `{"text":"x"}`, 20*time.Second)
		return err == nil && out.Outcome == "ok"
	})
	// Providers are handed the ids scoped to the calling key (call
	// ownership).
	if gate.Runs(store.ScopedCallID("a", "a1")) != 1 || gate.Runs(store.ScopedCallID("a", "a2")) != 1 {
		t.Fatal("a held call ran other than once")
	}
}

func gatedEcho() contract.ToolsetDeclaration {
	d := registrytest.Echo("gated")
	d.Tools[0].Confirmation = &tools.ConfirmationSpec{Title: "Echo", PromptTemplate: "Echo {{ .text }}?"}
	return d
}

// A consumer key calls a confirmation-gated tool only with a grant in the
// keys file: without it the call is forbidden before anything runs, and
// registry.CallTool gives the model a not_permitted failure; with it, or
// with an admin key, the call runs.
func TestGatedToolNeedsGrant(t *testing.T) {
	counter := registrytest.NewCounter()
	r := registrytest.Start(t, registrytest.Options{Keys: limitKeys(t)})
	ops := r.Client(t, limitOps)
	registrytest.Serve(t, ops, registry.Registration{Toolset: gatedEcho(), Revision: "r1"}, counter)
	ts := registrytest.WaitProviders(t, ops, "gated", 1)

	_, err := registrytest.Call(r.Client(t, limitA), "gated", "echo", ts.Token, "g1", `{"text":"x"}`, 5*time.Second)
	wantName(t, err, registry.ErrForbidden)
	noRecord(t, r, "g1")
	call := &toolcall.Call{Ident: "gated.echo", Spec: tools.ToolSpec{Name: "gated.echo"}, Payload: json.RawMessage(`{"text":"x"}`)}
	res, err := registry.CallTool(context.Background(), r.Client(t, limitA), ts.Token, "g2", call)
	if err != nil || res.Failure == nil || res.Failure.Code != toolcall.KindNotPermitted {
		t.Fatalf("CallTool without a grant: %v %+v", err, res)
	}
	if n := len(counter.Snapshot()); n != 0 {
		t.Fatalf("the executor ran %d calls without a grant", n)
	}
	// Another tool of the toolset, not gated, needs no grant.
	if _, err := registrytest.Call(r.Client(t, limitA), "gated", "add", ts.Token, "g3", `{"a":1,"b":2}`, 5*time.Second); err != nil {
		t.Fatalf("ungated tool: %v", err)
	}
	for key, id := range map[string]string{limitGrant: "g4", limitOps: "g5"} {
		if out, err := registrytest.Call(r.Client(t, key), "gated", "echo", ts.Token, id, `{"text":"x"}`, 5*time.Second); err != nil || out.Outcome != "ok" {
			t.Fatalf("call %s: %v %+v", id, err, out)
		}
	}
	if counter.Runs(store.ScopedCallID("granted", "g4")) != 1 || counter.Runs(store.ScopedCallID("ops", "g5")) != 1 {
		t.Fatalf("granted calls: %v", counter.Snapshot())
	}
}

// The count is per node: two nodes on one Redis each give key A its own
// slots. A fills its one slot at node 1, is refused there, and its call
// through node 2 runs on node 1's provider.
func TestKeyLimitIsPerNode(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{})
	gate := registrytest.NewGate()
	o := registrytest.Options{Keys: limitKeys(t), MaxCallsPerKey: 1, RedisURL: srv.URL()}
	n1, n2 := registrytest.Start(t, o), registrytest.Start(t, o)
	ops := n1.Client(t, limitOps)
	registrytest.Serve(t, ops, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 8}, holding(gate))
	ts := registrytest.WaitProviders(t, ops, "echo", 1)
	registrytest.WaitProviders(t, n2.Client(t, limitOps), "echo", 1)
	a1, a2 := n1.Client(t, limitA), n2.Client(t, limitA)

	held := async(a1, "echo", "echo", ts.Token, "n1", `{"text":"hold"}`, 20*time.Second)
	<-gate.Started()
	_, err := registrytest.Call(a1, "echo", "echo", ts.Token, "n1b", `{"text":"x"}`, 20*time.Second)
	wantName(t, err, registry.ErrKeyLimit)
	if out, err := registrytest.Call(a2, "echo", "echo", ts.Token, "n2", `{"text":"x"}`, 20*time.Second); err != nil || out.Outcome != "ok" {
		t.Fatalf("key a at node 2: %v %+v", err, out)
	}
	gate.Open()
	if ans := <-held; ans.err != nil || ans.out.Outcome != "ok" {
		t.Fatalf("held call: %+v", ans)
	}
}
