package registrytest

import (
	"context"
	"testing"
	"time"

	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// WaitProviders waits until toolset has n healthy providers with their
// streams connected, and returns its resolution.
func WaitProviders(t testing.TB, c *registry.Client, toolset string, n int) *gen.ResolvedToolset {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		res, err := c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
		if err == nil {
			for _, ts := range res.Toolsets {
				if ts.Name == toolset && ts.Providers == n {
					r, err := c.ResolveToolset(context.Background(), &gen.ResolveToolsetPayload{Name: toolset})
					if err != nil {
						t.Fatal(err)
					}
					// Leases are live before their streams connect: give the
					// streams a moment to attach.
					time.Sleep(50 * time.Millisecond)
					return r.Toolset
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("toolset %q never had %d healthy providers", toolset, n)
	return nil
}

// Call calls tool of toolset with payload (JSON) under callID.
func Call(c *registry.Client, toolset, tool, token, callID, payload string, timeout time.Duration) (*gen.CallOutcome, error) {
	return c.CallResolvedTool(context.Background(), &gen.CallResolvedToolPayload{
		Toolset: toolset, Tool: tool, Token: token, CallID: callID,
		Payload: rawPayload(payload), TimeoutMs: int(timeout / time.Millisecond),
	})
}
