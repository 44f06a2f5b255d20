package server_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

// resolvedNames returns the names of a resolution's toolsets, in order.
func resolvedNames(res *gen.ResolveRegistryResult) []string {
	var names []string
	for _, ts := range res.Toolsets {
		names = append(names, ts.Name)
	}
	return names
}

func TestResolveRegistryResolvesTheNamedToolsetsOnly(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	for _, name := range []string{"alpha", "beta", "gamma"} {
		registrytest.Register(t, c, registrytest.Echo(name), "r1", 1, false)
	}
	ctx := context.Background()
	res, err := c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{Toolsets: []string{"gamma", "alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resolvedNames(res); !slices.Equal(got, []string{"alpha", "gamma"}) || res.CatalogRevision != 3 || res.Etag != `"3"` {
		t.Fatalf("resolved %v at %d (%s), want alpha and gamma at 3", got, res.CatalogRevision, res.Etag)
	}
	for _, ts := range res.Toolsets {
		if ts.Token == "" || ts.Fingerprint == "" || ts.Declaration == nil {
			t.Fatalf("%s: incomplete: %+v", ts.Name, ts)
		}
	}
	all, err := c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{})
	if err != nil || !slices.Equal(resolvedNames(all), []string{"alpha", "beta", "gamma"}) {
		t.Fatalf("whole registry: %v %v", resolvedNames(all), err)
	}
}

// A caller holding the current revision is answered 304 with the ETag and
// no body, before its names are looked up: they resolved at that revision.
func TestResolveRegistryAnswersNotModifiedAtTheCurrentRevision(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	registrytest.Register(t, c, registrytest.Echo("alpha"), "r1", 1, false)
	ctx := context.Background()
	first, err := c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{Toolsets: []string{"alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	etag := first.Etag

	// Any names, even ones not registered: the revision alone decides.
	for _, names := range [][]string{nil, {"alpha"}, {"never-registered"}} {
		again, err := c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{Toolsets: names, IfNoneMatch: &etag})
		if err != nil || again.Unchanged == nil || *again.Unchanged != "true" || again.Etag != etag || len(again.Toolsets) != 0 {
			t.Fatalf("%v: conditional read of an unchanged catalog: %+v %v", names, again, err)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, r.URL+"/v1/resolve?toolset=alpha", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified || resp.Header.Get("ETag") != etag || len(body) != 0 {
		t.Fatalf("raw conditional read: %s, ETag %q, body %q", resp.Status, resp.Header.Get("ETag"), body)
	}

	// Another revision: a full answer, and names are looked up again.
	registrytest.Register(t, c, registrytest.Echo("beta"), "r1", 1, false)
	changed, err := c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{IfNoneMatch: &etag})
	if err != nil || changed.Unchanged != nil || !slices.Equal(resolvedNames(changed), []string{"alpha", "beta"}) || changed.Etag == etag {
		t.Fatalf("conditional read of a changed catalog: %+v %v", changed, err)
	}
	stale := `"` + strconv.FormatInt(first.CatalogRevision, 10) + `"`
	_, err = c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{Toolsets: []string{"never-registered"}, IfNoneMatch: &stale})
	wantName(t, err, registry.ErrUnknownToolset)
}

// The first missing name in sorted order decides the error, and its
// message lists the others.
func TestResolveRegistryNamesTheFirstMissingToolset(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	registrytest.Register(t, c, registrytest.Echo("beta"), "r1", 1, false)
	_, err := c.ResolveRegistry(context.Background(), &gen.ResolveRegistryPayload{Toolsets: []string{"zeta", "beta", "alpha"}})
	wantName(t, err, registry.ErrUnknownToolset)
	msg := err.Error()
	if !strings.Contains(msg, `no toolset "alpha" is registered`) || !strings.Contains(msg, `"zeta"`) || strings.Contains(msg, `"beta"`) {
		t.Fatalf("the error names %q", msg)
	}
}

// A named toolset removed after at_revision is toolset_removed; without
// at_revision, or from a revision after its removal, unknown_toolset.
func TestResolveRegistryReportsAToolsetRemovedAfterAtRevision(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	ctx := context.Background()
	registrytest.Register(t, c, registrytest.Echo("alpha"), "r1", 1, false)
	gone := registrytest.Register(t, c, registrytest.Echo("gone"), "r1", 1, false)
	at := gone.Lease.CatalogRevision
	if err := c.Unregister(ctx, unregister("gone")); err != nil {
		t.Fatal(err)
	}
	names := []string{"alpha", "gone"}
	_, err := c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{Toolsets: names, AtRevision: &at})
	wantName(t, err, registry.ErrToolsetRemoved)
	if !strings.Contains(err.Error(), `toolset "gone" was removed after catalog revision 2`) {
		t.Fatalf("the error says %q", err)
	}
	_, err = c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{Toolsets: names})
	wantName(t, err, registry.ErrUnknownToolset)
	after := at + 1
	_, err = c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{Toolsets: names, AtRevision: &after})
	wantName(t, err, registry.ErrUnknownToolset)
	// The whole registry at that revision is what is registered now.
	all, err := c.ResolveRegistry(ctx, &gen.ResolveRegistryPayload{AtRevision: &at})
	if err != nil || !slices.Equal(resolvedNames(all), []string{"alpha"}) {
		t.Fatalf("whole registry: %v %v", resolvedNames(all), err)
	}
}

// Names are checked before the revision: a malformed request is refused
// even when the catalog did not change.
func TestResolveRegistryRefusesDuplicateNamesEvenWhenUnchanged(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	registrytest.Register(t, c, registrytest.Echo("alpha"), "r1", 1, false)
	etag := `"1"`
	_, err := c.ResolveRegistry(context.Background(), &gen.ResolveRegistryPayload{Toolsets: []string{"alpha", "alpha"}, IfNoneMatch: &etag})
	wantName(t, err, registry.ErrBadRequest)
}
