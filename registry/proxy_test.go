package registry_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
)

// faultProxy stands in front of a registry, counting the requests of each
// route ("GET /v1/resolve"); fault, when set, may answer a request itself
// (it returns true then) from the route and the request's number on that
// route, counting from 1.
type faultProxy struct {
	URL   string
	fault func(w http.ResponseWriter, r *http.Request, n int, forward http.Handler) bool

	mu     sync.Mutex
	counts map[string]int
}

func newFaultProxy(t *testing.T, target string, fault func(w http.ResponseWriter, r *http.Request, n int, forward http.Handler) bool) *faultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	p := &faultProxy{fault: fault, counts: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.Path
		p.mu.Lock()
		p.counts[key]++
		n := p.counts[key]
		p.mu.Unlock()
		if p.fault != nil && p.fault(w, r, n, rp) {
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// count returns how many requests the route received.
func (p *faultProxy) count(route string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[route]
}

// total returns how many requests the proxy received.
func (p *faultProxy) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.counts {
		n += c
	}
	return n
}

// noKeepAlive is an HTTP client opening a connection per request, so that
// a connection the proxy drops is not retried by net/http itself.
func noKeepAlive() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}
