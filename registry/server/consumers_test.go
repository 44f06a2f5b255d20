package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools/contract"
)

func TestAnEmptyRegistryResolvesToNothing(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	res, err := c.ResolveRegistry(context.Background(), &gen.ResolveRegistryPayload{})
	if err != nil || len(res.Toolsets) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	list, err := c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
	if err != nil || len(list.Toolsets) != 0 {
		t.Fatalf("%+v %v", list, err)
	}
}

func TestListFiltersByTagsAndAnswersNotModified(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	tagged := registrytest.Echo("tagged")
	tagged.Tags = []string{"test", "finance"}
	registrytest.Register(t, c, tagged, "r1", 1, false)
	registrytest.Register(t, c, registrytest.Echo("plain"), "r1", 1, false)

	list, err := c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{Tags: []string{"finance", "test"}})
	if err != nil || len(list.Toolsets) != 1 || list.Toolsets[0].Name != "tagged" {
		t.Fatalf("tag filter: %+v %v", list, err)
	}
	all, err := c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
	if err != nil || len(all.Toolsets) != 2 || all.Etag != `"2"` {
		t.Fatalf("list: %+v %v", all, err)
	}
	again, err := c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{IfNoneMatch: &all.Etag})
	if err != nil || again.Unchanged == nil || *again.Unchanged != "true" || len(again.Toolsets) != 0 {
		t.Fatalf("conditional read of an unchanged catalog: %+v %v", again, err)
	}
	registrytest.Register(t, c, registrytest.Echo("third"), "r1", 1, false)
	changed, err := c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{IfNoneMatch: &all.Etag})
	if err != nil || changed.Unchanged != nil || len(changed.Toolsets) != 3 {
		t.Fatalf("conditional read of a changed catalog: %+v %v", changed, err)
	}
}

func TestChangeFeedWakesALongPoll(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	got := make(chan *gen.ChangesResult, 1)
	go func() {
		res, err := c.Changes(context.Background(), &gen.ChangesPayload{After: 0, WaitMs: 10000})
		if err != nil {
			t.Error(err)
		}
		got <- res
	}()
	time.Sleep(50 * time.Millisecond)
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	select {
	case res := <-got:
		if res.Revision != 1 || len(res.Changes) != 1 || res.Changes[0].Kind != "registered" || res.Changes[0].Toolset != "echo" {
			t.Fatalf("%+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the long poll was not woken by a registration")
	}
	// Nothing new: the poll waits its time and returns no change.
	start := time.Now()
	res, err := c.Changes(context.Background(), &gen.ChangesPayload{After: 1, WaitMs: 100})
	if err != nil || len(res.Changes) != 0 || time.Since(start) < 100*time.Millisecond {
		t.Fatalf("%+v %v", res, err)
	}
	if err := c.Unregister(context.Background(), unregister("echo")); err != nil {
		t.Fatal(err)
	}
	res, err = c.Changes(context.Background(), &gen.ChangesPayload{After: 1, WaitMs: 0})
	if err != nil || len(res.Changes) != 1 || res.Changes[0].Kind != "removed" {
		t.Fatalf("%+v %v", res, err)
	}
	_ = p
}

func TestResolveFailsExplicitly(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	decl := registrytest.Echo("echo")
	decl.Version = "1.2.3"
	registrytest.Register(t, c, decl, "r1", 1, false)
	registrytest.Register(t, c, registrytest.Echo("gone"), "r1", 1, false)
	ctx := context.Background()

	ok, err := c.ResolveToolset(ctx, &gen.ResolveToolsetPayload{Name: "echo", Version: ptr("1.2.3")})
	if err != nil {
		t.Fatal(err)
	}
	var back contract.ToolsetDeclaration
	raw, _ := json.Marshal(ok.Toolset.Declaration)
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if fp, _ := contract.Fingerprint(back); fp != ok.Toolset.Fingerprint || ok.Toolset.Token == "" {
		t.Fatalf("the resolved declaration does not hash to its fingerprint: %s vs %s", fp, ok.Toolset.Fingerprint)
	}

	_, err = c.ResolveToolset(ctx, &gen.ResolveToolsetPayload{Name: "echo", Version: ptr("2.0.0")})
	wantName(t, err, registry.ErrVersionMismatch)
	_, err = c.ResolveToolset(ctx, &gen.ResolveToolsetPayload{Name: "missing"})
	wantName(t, err, registry.ErrUnknownToolset)

	at := ok.CatalogRevision
	if err := c.Unregister(ctx, unregister("gone")); err != nil {
		t.Fatal(err)
	}
	_, err = c.ResolveToolset(ctx, &gen.ResolveToolsetPayload{Name: "gone", AtRevision: &at})
	wantName(t, err, registry.ErrToolsetRemoved)
}

func TestSearchFindsToolsAcrossTheCatalog(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	registrytest.Register(t, c, registrytest.Echo("math"), "r1", 1, false)
	res, err := c.Search(context.Background(), &gen.SearchPayload{Q: "repeat the text", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Tool != "echo" {
		t.Fatalf("%+v", res.Hits)
	}
	exact, err := c.Search(context.Background(), &gen.SearchPayload{Q: "math.add", Limit: 5})
	if err != nil || len(exact.Hits) == 0 || exact.Hits[0].Ident != "math.add" {
		t.Fatalf("exact ident: %+v %v", exact, err)
	}
}

// A search returns up to its limit, past the discovery core's default of
// five a model's search gets.
func TestSearchReturnsUpToItsLimit(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		registrytest.Register(t, c, registrytest.Echo("echo"+name), "r1", 1, false)
	}
	for _, limit := range []int{3, 8} {
		res, err := c.Search(context.Background(), &gen.SearchPayload{Q: "echo", Limit: limit})
		if err != nil || len(res.Hits) != limit {
			t.Fatalf("limit %d: %d hits, %v", limit, len(res.Hits), err)
		}
	}
}

func ptr[T any](v T) *T { return &v }
