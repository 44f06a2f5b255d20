package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/registry/server"
)

// callInjected calls tenant.lookup with payload and injected (raw JSON;
// "" sends no injected member).
func callInjected(c *registry.Client, token, id, payload, injected string) (*gen.CallOutcome, error) {
	p := &gen.CallResolvedToolPayload{Toolset: "tenant", Tool: "lookup", Token: token, CallID: id,
		Payload: json.RawMessage(payload), TimeoutMs: 10000}
	if injected != "" {
		p.Injected = json.RawMessage(injected)
	}
	return c.CallResolvedTool(context.Background(), p)
}

// The provider receives the model's payload with the consumer's injected
// values filled in; a retry must send the same values.
func TestInjectedValuesReachTheProvider(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{LeaseTTL: time.Minute})
	c := r.Client(t, "")
	p := registrytest.Register(t, c, registrytest.Tenant(), "r1", 1, true)
	const injected = `{"session_id":"s-1","tenant_id":"t-acme"}`
	done := make(chan answer, 1)
	go func() {
		out, err := callInjected(c, p.Lease.Token, "inj-1", `{"q":"invoices"}`, injected)
		done <- answer{out, err}
	}()
	f := <-p.Frames
	got, _ := json.Marshal(f.Payload)
	if want := `{"q":"invoices","session_id":"s-1","tenant_id":"t-acme"}`; string(got) != want {
		t.Fatalf("the provider received %s, want %s", got, want)
	}
	if _, err := p.Post(*f.CallID, `{"ok":true}`, ""); err != nil {
		t.Fatal(err)
	}
	if a := <-done; a.err != nil || a.out.Outcome != "ok" {
		t.Fatalf("the call answered %+v, %v", a.out, a.err)
	}
	if out, err := callInjected(c, p.Lease.Token, "inj-1", `{"q":"invoices"}`, injected); err != nil || out.Outcome != "ok" {
		t.Fatalf("a retry with the same values answered %+v, %v: want the recorded outcome", out, err)
	}
	_, err := callInjected(c, p.Lease.Token, "inj-1", `{"q":"invoices"}`, `{"session_id":"s-1","tenant_id":"t-other"}`)
	wantName(t, err, registry.ErrCallIDConflict)
	// The payload that a call with injected values reaches the provider
	// with is not the same request as that payload sent without them.
	_, err = callInjected(c, p.Lease.Token, "inj-1", `{"q":"invoices","session_id":"s-1","tenant_id":"t-acme"}`, "")
	wantName(t, err, registry.ErrCallIDConflict)
}

// A payload that sets an injected field is refused whoever sends it — a
// consumer key's caller included, with or without injected values beside it —
// and injected values that do not match the tool's injected fields are
// refused with what to fix; none reaches a provider.
func TestInjectedFieldsRefused(t *testing.T) {
	keys, err := server.NewKeys(
		server.Key{Name: "provider", Key: "provider-key-0123456789", Role: server.RoleProvider, Toolsets: []string{"tenant", "echo"}},
		server.Key{Name: "consumer", Key: "consumer-key-0123456789", Role: server.RoleConsumer},
	)
	if err != nil {
		t.Fatal(err)
	}
	r := registrytest.Start(t, registrytest.Options{LeaseTTL: time.Minute, Keys: keys})
	provider, c := r.Client(t, "provider-key-0123456789"), r.Client(t, "consumer-key-0123456789")
	p := registrytest.Register(t, provider, registrytest.Tenant(), "r1", 1, true)
	echo := registrytest.Register(t, provider, registrytest.Echo("echo"), "r1", 1, true)
	const ok = `{"session_id":"s-1","tenant_id":"t-acme"}`
	for _, tc := range []struct {
		name, payload, injected string
		want                    []string
	}{
		{"the payload sets the field", `{"q":"x","tenant_id":"t-evil"}`, "", []string{"tenant_id", "remove it from the arguments"}},
		{"the payload sets the field beside injected values", `{"q":"x","tenant_id":"t-evil"}`, ok, []string{"tenant_id", "remove it from the arguments"}},
		{"the payload sets the field in another spelling", `{"q":"x","Tenant_ID":"t-evil"}`, ok, []string{"Tenant_ID"}},
		{"no injected values", `{"q":"x"}`, "", []string{`"session_id"`, `"tenant_id"`, "send their values in injected"}},
		{"an extra key", `{"q":"x"}`, `{"session_id":"s-1","tenant_id":"t-acme","user_id":"u-1"}`, []string{"injected.user_id: not an injected field", "remove it"}},
		{"a field missing", `{"q":"x"}`, `{"tenant_id":"t-acme"}`, []string{"injected.session_id: missing"}},
		{"a value of the wrong type", `{"q":"x"}`, `{"session_id":"s-1","tenant_id":7}`, []string{"injected.tenant_id: must be a JSON string"}},
		{"a value breaking the field schema", `{"q":"x"}`, `{"session_id":"s-1","tenant_id":"SECRET-VALUE"}`, []string{"injected.tenant_id: does not satisfy the field's schema"}},
		{"an empty label value", `{"q":"x"}`, `{"session_id":"s-1","tenant_id":""}`, []string{"injected.tenant_id: empty"}},
		{"not an object", `{"q":"x"}`, `["t-acme"]`, []string{"injected must be a JSON object"}},
		{"a key named twice", `{"q":"x"}`, `{"session_id":"s-1","tenant_id":"t-acme","tenant_id":"t-evil"}`, []string{"injected", "tenant_id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := callInjected(c, p.Lease.Token, "refused-"+strings.ReplaceAll(tc.name, " ", "-"), tc.payload, tc.injected)
			wantName(t, err, registry.ErrValidation)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "SECRET-VALUE") {
				t.Errorf("refusal %q quotes the injected value", err)
			}
		})
	}
	_, err = c.CallResolvedTool(context.Background(), &gen.CallResolvedToolPayload{Toolset: "echo", Tool: "echo", Token: echo.Lease.Token,
		CallID: "refused-echo", Payload: json.RawMessage(`{"text":"hi"}`), Injected: json.RawMessage(`{"tenant_id":"t-acme"}`), TimeoutMs: 10000})
	wantName(t, err, registry.ErrValidation)
	if !strings.Contains(err.Error(), "declares no injected fields") {
		t.Errorf("injected values for a tool without injected fields: %v", err)
	}
	select {
	case f := <-p.Frames:
		t.Fatalf("a refused call reached the provider: %+v", f)
	case f := <-echo.Frames:
		t.Fatalf("a refused call reached the provider: %+v", f)
	default:
	}
}
