package toolcall_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// tenantExecutor answers with what it decoded, injected fields included,
// and the call's Payload as the executor sees it.
func tenantExecutor() *counting {
	return &counting{reply: func(call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			Q        string `json:"q"`
			TenantID string `json:"tenant_id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		full, err := call.InjectedPayload()
		if err != nil {
			return nil, err
		}
		var m map[string]string
		if err := json.Unmarshal(full, &m); err != nil || m["tenant_id"] != p.TenantID {
			return nil, toolcall.Fail(toolcall.KindToolError, "", "InjectedPayload %s disagrees with Decode (%v)", full, err)
		}
		res, _ := json.Marshal(map[string]string{"q": p.Q, "tenant": p.TenantID, "payload": string(call.Payload)})
		return &toolcall.Result{Result: res}, nil
	}}
}

// TestRegistryToolWithInjectedFields calls a registry tool with injected
// fields from an agent and over MCP: it runs with the run's label as its
// injected value, and the executor's Payload holds no injected field. A
// model writing the field is refused before anything is sent.
func TestRegistryToolWithInjectedFields(t *testing.T) {
	exec := tenantExecutor()
	reg := registrytest.Start(t, registrytest.Options{})
	client := reg.Client(t, "")
	registrytest.Serve(t, client, registry.Registration{Toolset: registrytest.Tenant(), Revision: "r1"}, exec)
	registrytest.WaitProviders(t, client, "tenant", 1)
	labels := map[string]string{"tenant_id": "t-acme"}

	viaRuntime := func(args string) (json.RawMessage, bool) {
		return runtimeAnswer(t, func(rt *runtime.Runtime) runtime.AgentRegistration {
			if err := rt.RegisterRegistry("corp", reg.Client(t, "")); err != nil {
				t.Fatal(err)
			}
			return runtime.AgentRegistration{Registries: []runtime.RegistryUse{{Registry: "corp", Toolset: "tenant"}}}
		}, "lookup", args, runtime.WithLabels(labels))
	}
	viaMCP := func(args string) (json.RawMessage, bool) {
		s, err := mcp.New(mcp.Config{Source: mcp.Registry(reg.Client(t, "")), ExposeAll: true, Labels: labels,
			Anonymous: tools.ExposureFull, Undeclared: tools.ExposureFull})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if err := s.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		answer, isError, err := mcpCall(t, s, "lookup", args)
		if err != nil {
			t.Fatalf("MCP call: %v", err)
		}
		return answer, isError
	}
	for _, path := range []struct {
		name string
		call func(args string) (json.RawMessage, bool)
	}{{"runtime", viaRuntime}, {"MCP", viaMCP}} {
		t.Run(path.name, func(t *testing.T) {
			before := exec.runs.Load()
			answer, isError := path.call(`{"q":"invoices"}`)
			if isError {
				t.Fatalf("the call failed: %s", answer)
			}
			var got struct{ Q, Tenant, Payload string }
			if err := json.Unmarshal(answer, &got); err != nil {
				t.Fatalf("answer %s: %v", answer, err)
			}
			if got.Q != "invoices" || got.Tenant != "t-acme" {
				t.Errorf("the executor read q %q, tenant %q: want invoices, t-acme", got.Q, got.Tenant)
			}
			if got.Payload != `{"q":"invoices"}` {
				t.Errorf("the executor's Payload is %s: want the model's payload without injected fields", got.Payload)
			}
			// The model writes the injected field: the pipeline's
			// canonicalization refuses it before the registry is called.
			answer, isError = path.call(`{"q":"invoices","tenant_id":"t-evil"}`)
			var f struct {
				Error   toolcall.Kind `json:"error"`
				Message string        `json:"message"`
			}
			if err := json.Unmarshal(answer, &f); !isError || err != nil || f.Error != toolcall.KindInvalidPayload || !strings.Contains(f.Message, "tenant_id") {
				t.Errorf("a model writing tenant_id read %s: want an invalid_payload failure naming tenant_id", answer)
			}
			if runs := exec.runs.Load() - before; runs != 1 {
				t.Errorf("the executor ran %d times: want once, for the call the model did not inject into", runs)
			}
		})
	}
}
