package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/quiver-go/quiver/mcp/gateway"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// pruneStale removes from the registry the toolsets an earlier quiver
// serve on this data folder published and this one does not — the
// example toolset after a switch to --upstreams, a server taken out of the
// --upstreams file — which would otherwise stay in the catalog, found by
// search but answering every call tool_unavailable. Only toolsets with no
// provider left and one of quiver serve's own revision prefixes go: a
// toolset another provider published through the provider key stays. It
// returns the names removed.
func pruneStale(ctx context.Context, registryURL, adminKey string, serving map[string]bool, log *slog.Logger) ([]string, error) {
	admin, err := registry.NewClient(registryURL, registry.WithAPIKey(adminKey))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := admin.ListToolsets(ctx, &gen.ListToolsetsPayload{})
	if err != nil {
		return nil, fmt.Errorf("list the registry's toolsets: %w", err)
	}
	var removed []string
	for _, ts := range res.Toolsets {
		ours := strings.HasPrefix(ts.Revision, gateway.RevisionPrefix) || strings.HasPrefix(ts.Revision, workspaceRevisionPrefix)
		if !ours || serving[ts.Name] || ts.Providers > 0 {
			continue
		}
		if err := admin.Unregister(ctx, &gen.UnregisterPayload{Name: ts.Name}); err != nil {
			log.Warn("quiver serve: could not remove a toolset it no longer publishes", "toolset", ts.Name, "err", err)
			continue
		}
		removed = append(removed, ts.Name)
	}
	return removed, nil
}
