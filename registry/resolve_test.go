package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools/contract"
)

// names returns the names of a resolution's toolsets, in order.
func names(res *registry.Resolution) []string {
	var out []string
	for _, ts := range res.Toolsets {
		out = append(out, ts.Name)
	}
	return out
}

// bigSchema is an input schema with a number no float64 holds.
const bigSchema = `{"type":"object","properties":{"n":{"type":"integer","maximum":123456789012345678901234567890}},"required":["n"]}`

func TestResolveReadsEveryContractExactly(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	ctx := context.Background()
	empty, err := c.Resolve(ctx, registry.ResolveRequest{})
	if err != nil || empty.Revision != 0 || empty.NotModified || len(empty.Toolsets) != 0 || empty.Toolsets == nil {
		t.Fatalf("an empty registry: %+v %v", empty, err)
	}
	big := registrytest.Echo("big")
	big.Version = "1.2.3"
	big.Tools[1].InputSchema = json.RawMessage(bigSchema)
	registrytest.Register(t, c, big, "r7", 1, false)
	registrytest.Register(t, c, registrytest.Echo("alpha"), "r1", 1, false)

	res, err := c.Resolve(ctx, registry.ResolveRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Revision != 2 || res.NotModified || !slices.Equal(names(res), []string{"alpha", "big"}) {
		t.Fatalf("resolved %v at %d", names(res), res.Revision)
	}
	ts := res.Toolsets[1]
	if ts.Version != "1.2.3" || ts.Revision != "r7" || !strings.HasPrefix(ts.Token, "qrt1_") || ts.Declaration.Name != "big" {
		t.Fatalf("%+v", ts)
	}
	if fp, err := contract.Fingerprint(ts.Declaration); err != nil || fp != ts.Fingerprint {
		t.Fatalf("the declaration hashes to %s (%v), the registry lists %s", fp, err, ts.Fingerprint)
	}
	if got := string(ts.Declaration.Tools[1].InputSchema); !strings.Contains(got, "123456789012345678901234567890") {
		t.Fatalf("the schema's number changed: %s", got)
	}

	named, err := c.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"big"}})
	if err != nil || !slices.Equal(names(named), []string{"big"}) || named.Revision != 2 {
		t.Fatalf("named: %+v %v", named, err)
	}
}

// A caller holding the current revision reads NotModified with one
// request; after a change it reads the new contracts.
func TestResolveIsConditionalOnTheKnownRevision(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	registrytest.Register(t, r.Client(t, ""), registrytest.Echo("alpha"), "r1", 1, false)
	proxy := newFaultProxy(t, r.URL, nil)
	c, err := registry.NewClient(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := c.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"alpha"}, Known: first.Revision})
	if err != nil || !again.NotModified || again.Revision != first.Revision || again.Toolsets != nil {
		t.Fatalf("unchanged: %+v %v", again, err)
	}
	if n := proxy.count("GET /v1/resolve"); n != 2 {
		t.Fatalf("%d requests, want one per Resolve", n)
	}
	registrytest.Register(t, r.Client(t, ""), registrytest.Echo("beta"), "r1", 1, false)
	changed, err := c.Resolve(ctx, registry.ResolveRequest{Known: first.Revision})
	if err != nil || changed.NotModified || changed.Revision != first.Revision+1 || !slices.Equal(names(changed), []string{"alpha", "beta"}) {
		t.Fatalf("changed: %+v %v", changed, err)
	}
}

// The registry's errors keep their names through Resolve.
func TestResolveKeepsTheRegistrysErrorNames(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	ctx := context.Background()
	registrytest.Register(t, c, registrytest.Echo("alpha"), "r1", 1, false)
	gone := registrytest.Register(t, c, registrytest.Echo("gone"), "r1", 1, false)
	known := gone.Lease.CatalogRevision
	_, err := c.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"alpha", "missing"}})
	if registry.ErrorName(err) != registry.ErrUnknownToolset || !strings.Contains(err.Error(), `"missing"`) {
		t.Fatalf("unknown: %v (%q)", err, registry.ErrorName(err))
	}
	if err := gone.C.Unregister(ctx, unregisterPayload("gone")); err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"alpha", "gone"}, Known: known})
	if registry.ErrorName(err) != registry.ErrToolsetRemoved || !strings.Contains(err.Error(), `toolset "gone" was removed`) {
		t.Fatalf("removed: %v (%q)", err, registry.ErrorName(err))
	}
	_, err = c.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"gone"}})
	if registry.ErrorName(err) != registry.ErrUnknownToolset {
		t.Fatalf("removed, no known revision: %v", err)
	}
}

// Malformed requests fail before any request.
func TestResolveRefusesMalformedRequests(t *testing.T) {
	proxy := newFaultProxy(t, registrytest.Start(t, registrytest.Options{}).URL, nil)
	c, err := registry.NewClient(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req    registry.ResolveRequest
		phrase string
	}{
		{registry.ResolveRequest{Toolsets: []string{"a", "b", "a"}}, `toolset "a" is named twice`},
		{registry.ResolveRequest{Toolsets: []string{""}}, "an empty toolset name"},
		{registry.ResolveRequest{Known: -1}, "Known is -1"},
	} {
		_, err := c.Resolve(context.Background(), tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.phrase) || !strings.HasPrefix(err.Error(), "registry: ") {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.phrase)
		}
	}
	if n := proxy.total(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// The federation's globs select what the whole registry resolves to; a
// named toolset they exclude fails before any request.
func TestResolveAppliesTheFederation(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	for _, name := range []string{"data-orders", "data-exp-graph", "web-search", "mail"} {
		registrytest.Register(t, r.Client(t, ""), registrytest.Echo(name), "r1", 1, false)
	}
	proxy := newFaultProxy(t, r.URL, nil)
	c, err := registry.NewClient(proxy.URL, registry.WithFederation([]string{"data-*", "web-*"}, []string{"data-exp-*"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all, err := c.Resolve(ctx, registry.ResolveRequest{})
	if err != nil || !slices.Equal(names(all), []string{"data-orders", "web-search"}) {
		t.Fatalf("whole registry: %v %v", names(all), err)
	}
	for _, tc := range []struct{ name, phrase string }{
		{"data-exp-graph", `matches the Exclude pattern "data-exp-*"`},
		{"mail", `matches none of the Include patterns ["data-*" "web-*"]`},
	} {
		_, err := c.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"web-search", tc.name}})
		if !errors.Is(err, registry.ErrExcludedByFederation) || !strings.Contains(err.Error(), `toolset "`+tc.name+`" `+tc.phrase) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if n := proxy.count("GET /v1/resolve"); n != 1 {
		t.Fatalf("%d requests, want the whole registry's only", n)
	}
	named, err := c.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"web-search"}})
	if err != nil || !slices.Equal(names(named), []string{"web-search"}) {
		t.Fatalf("named: %v %v", names(named), err)
	}
}

// A declaration the client cannot decode fails, naming its toolset.
func TestResolveNamesAToolsetWhoseDeclarationDoesNotDecode(t *testing.T) {
	srv := newFakeRegistry(t, `{"catalog_revision":3,"toolsets":[{"name":"odd","fingerprint":"sha256:00","revision":"r1","token":"qrt1_00","declaration":{"name":"odd","tools":[],"priority":"high"}}]}`)
	c, err := registry.NewClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(context.Background(), registry.ResolveRequest{})
	if err == nil || !strings.Contains(err.Error(), `toolset "odd": its declaration does not decode`) || !strings.Contains(err.Error(), "priority") {
		t.Fatalf("%v", err)
	}
}

// newFakeRegistry answers every request 200 with body and returns its URL.
func newFakeRegistry(t *testing.T, body string) string {
	t.Helper()
	proxy := newFaultProxy(t, "http://127.0.0.1:1", func(w http.ResponseWriter, _ *http.Request, _ int, _ http.Handler) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"3"`)
		_, _ = w.Write([]byte(body))
		return true
	})
	return proxy.URL
}

func unregisterPayload(name string) *gen.UnregisterPayload { return &gen.UnregisterPayload{Name: name} }
