package registry_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	workspace "github.com/quiver-go/quiver/examples/records/gen/toolsets/workspace"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
)

// A generated toolset is served in a few lines: its Toolset() is the full
// ToolSchemas() publication.
func TestServeAGeneratedToolset(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	client := r.Client(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)

	go func() {
		served <- registry.Serve(ctx, client, registry.Registration{Toolset: workspace.Toolset(), Revision: "2026.11.30"},
			registrytest.Returning(func(ctx context.Context, call *toolcall.Call) (json.RawMessage, error) {
				return json.RawMessage(`{"tables":[{"name":"orders","rows":42}]}`), nil
			}))
	}()

	ts := registrytest.WaitProviders(t, client, "workspace", 1)
	out, err := client.CallResolvedTool(context.Background(), &gen.CallResolvedToolPayload{
		Toolset: "workspace", Tool: "listTables", Token: ts.Token, CallID: "c1",
		Payload: json.RawMessage(`{"limit":10}`), TimeoutMs: 5000,
	})
	if err != nil || out.Outcome != "ok" {
		t.Fatalf("%+v %v", out, err)
	}
	// The generated schema is closed: an injected field is refused before
	// any provider sees it.
	_, err = client.CallResolvedTool(context.Background(), &gen.CallResolvedToolPayload{
		Toolset: "workspace", Tool: "listTables", Token: ts.Token, CallID: "c2",
		Payload: json.RawMessage(`{"limit":10,"user_id":"root"}`), TimeoutMs: 5000,
	})
	if registry.ErrorName(err) != registry.ErrValidation {
		t.Fatalf("injected field: %v", err)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve after a graceful stop: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not drain")
	}
	// The drained provider released its lease.
	list, err := client.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
	if err != nil || list.Toolsets[0].Providers != 0 {
		t.Fatalf("%+v %v", list, err)
	}
}
