package runtime

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"net/http/httptest"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/tools/contract"
)

// regEnv is a real registry served over loopback HTTP, with a proxy in
// front of it for the consumer that counts the consumer's catalog reads.
type regEnv struct {
	t       *testing.T
	reg     *registrytest.Registry
	admin   *registry.Client
	proxy   *httptest.Server
	reads   atomic.Int64
	calls   atomic.Int64
	counter *registrytest.Counter
	// stops are the running providers' stops, by toolset.
	stops map[string]func() error
}

func newRegEnv(t *testing.T) *regEnv {
	t.Helper()
	return newRegEnvOn(t, registrytest.Options{})
}

// onEachStore runs test against a registry on the embedded store and
// against one on a real redis-server (internal/redistest).
func onEachStore(t *testing.T, test func(t *testing.T, e *regEnv)) {
	t.Run("embedded", func(t *testing.T) { test(t, newRegEnv(t)) })
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t, redistest.Options{})
		test(t, newRegEnvOn(t, registrytest.Options{RedisURL: srv.URL()}))
	})
}

func newRegEnvOn(t *testing.T, o registrytest.Options) *regEnv {
	t.Helper()
	e := &regEnv{t: t, reg: registrytest.Start(t, o), counter: registrytest.NewCounter()}
	e.admin = e.reg.Client(t, "")
	target, err := url.Parse(e.reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	e.proxy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/resolve":
			e.reads.Add(1)
		case r.Method == http.MethodPost && r.URL.Path == "/v1/calls":
			e.calls.Add(1)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(e.proxy.Close)
	return e
}

// serve publishes decl at revision with the env's counting executor and
// waits until its provider receives calls.
func (e *regEnv) serve(decl contract.ToolsetDeclaration, revision string) (stop func() error) {
	e.t.Helper()
	stop = registrytest.Serve(e.t, e.reg.Client(e.t, ""), registry.Registration{Toolset: decl, Revision: revision}, e.counter)
	registrytest.WaitProviders(e.t, e.admin, decl.Name, 1)
	if e.stops == nil {
		e.stops = map[string]func() error{}
	}
	e.stops[decl.Name] = stop
	return stop
}

// unregister removes a toolset from the catalog, stopping its provider
// first: a provider still serving registers again when its lease goes.
func (e *regEnv) unregister(name string) {
	e.t.Helper()
	if stop := e.stops[name]; stop != nil {
		if err := stop(); err != nil {
			e.t.Errorf("provider of %s: %v", name, err)
		}
	}
	if err := e.admin.Unregister(context.Background(), &gen.UnregisterPayload{Name: name}); err != nil {
		e.t.Fatal(err)
	}
}

// consumer returns a client that reads through the counting proxy.
func (e *regEnv) consumer(opts ...registry.ClientOption) *registry.Client {
	e.t.Helper()
	c, err := registry.NewClient(e.proxy.URL, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// connect registers the env's consumer client as registry "corp".
func (e *regEnv) connect(f *fixture, opts ...registry.ClientOption) {
	e.t.Helper()
	if err := f.rt.RegisterRegistry("corp", e.consumer(opts...)); err != nil {
		e.t.Fatal(err)
	}
}

// versioned returns decl published at version v.
func versioned(decl contract.ToolsetDeclaration, v string) contract.ToolsetDeclaration {
	decl.Version = v
	return decl
}
