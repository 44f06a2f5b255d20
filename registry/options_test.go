package registry_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
)

func TestClientOptionsAreValidated(t *testing.T) {
	for _, tc := range []struct {
		opt    registry.ClientOption
		phrase string
	}{
		{registry.WithTimeout(-time.Second), "WithTimeout(-1s)"},
		{registry.WithRetry(-1, time.Second), "maxRetries is 0 or more"},
		{registry.WithRetry(3, 0), "the backoff is a positive duration"},
		{registry.WithRetry(3, -time.Second), "the backoff is a positive duration"},
		{registry.WithAPIVersion(""), `WithAPIVersion("")`},
		{registry.WithAPIVersion("v1/beta"), "one path segment"},
		{registry.WithAPIVersion(".."), "one path segment"},
		{registry.WithAPIVersion("v 2"), "one path segment"},
		{registry.WithFederation([]string{"data-["}, nil), `"data-[" is not a glob pattern`},
		{registry.WithFederation(nil, []string{" "}), "an empty pattern"},
		{registry.WithSyncInterval(-time.Minute), "WithSyncInterval(-1m0s)"},
		{registry.WithCacheTTL(-time.Hour), "WithCacheTTL(-1h0m0s)"},
		{nil, "a nil ClientOption"},
		{registry.WithBaseURL(""), "WithBaseURL"},
		{registry.WithBaseURL("ftp://x"), `URL "ftp://x"`},
	} {
		_, err := registry.NewClient("http://127.0.0.1:7420", tc.opt)
		if err == nil || !strings.HasPrefix(err.Error(), "registry: ") || !strings.Contains(err.Error(), tc.phrase) {
			t.Errorf("%v, want an error saying %q", err, tc.phrase)
		}
	}
	for _, opt := range []registry.ClientOption{
		registry.WithTimeout(0), registry.WithRetry(0, 0), registry.WithAPIVersion("v2.1-beta_~"),
		registry.WithFederation(nil, nil), registry.WithSyncInterval(0), registry.WithCacheTTL(0),
	} {
		if _, err := registry.NewClient("http://127.0.0.1:7420", opt); err != nil {
			t.Errorf("refused: %v", err)
		}
	}
}

// The client stores the consumer settings and hands out copies.
func TestClientKeepsTheConsumerSettings(t *testing.T) {
	include, exclude := []string{"data-*"}, []string{"data-exp-*"}
	c, err := registry.NewClient("http://127.0.0.1:7420", registry.WithSyncInterval(time.Minute), registry.WithCacheTTL(time.Hour),
		registry.WithFederation([]string{"old-*"}, nil), registry.WithFederation(include, exclude))
	if err != nil {
		t.Fatal(err)
	}
	include[0] = "changed"
	s := c.Consumer()
	if s.SyncInterval != time.Minute || s.CacheTTL != time.Hour || !slices.Equal(s.Include, []string{"data-*"}) || !slices.Equal(s.Exclude, exclude) {
		t.Fatalf("%+v", s)
	}
	s.Include[0] = "mutated"
	if c.Consumer().Include[0] != "data-*" {
		t.Fatal("Consumer shares its slices")
	}
	none, _ := registry.NewClient("http://127.0.0.1:7420")
	if s := none.Consumer(); s.SyncInterval != 0 || s.CacheTTL != 0 || s.Include != nil || s.Exclude != nil {
		t.Fatalf("defaults: %+v", s)
	}
}

// unavailable answers a request 503 as a gateway does (no registry error).
func unavailable(w http.ResponseWriter) {
	http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
}

// Reads are retried after transport errors and gateway statuses, waiting
// longer each time, until one succeeds or the retries run out.
func TestRetryRepeatsAFailedRead(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	registrytest.Register(t, r.Client(t, ""), registrytest.Echo("alpha"), "r1", 1, false)
	failures := []func(w http.ResponseWriter){
		unavailable,
		func(w http.ResponseWriter) { http.Error(w, "bad gateway", http.StatusBadGateway) },
		func(w http.ResponseWriter) { http.Error(w, "gateway timeout", http.StatusGatewayTimeout) },
		func(w http.ResponseWriter) { // the connection drops
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		},
	}
	proxy := newFaultProxy(t, r.URL, func(w http.ResponseWriter, _ *http.Request, n int, _ http.Handler) bool {
		if n <= len(failures) {
			failures[n-1](w)
			return true
		}
		return false
	})
	const backoff = 10 * time.Millisecond
	c, err := registry.NewClient(proxy.URL, registry.WithHTTPClient(noKeepAlive()), registry.WithRetry(4, backoff))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := c.Resolve(context.Background(), registry.ResolveRequest{})
	if err != nil || len(res.Toolsets) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if n := proxy.count("GET /v1/resolve"); n != 5 {
		t.Fatalf("%d requests, want 4 failures and a success", n)
	}
	if waited := time.Since(start); waited < backoff*(1+2+4+8) {
		t.Fatalf("retried within %s: the backoff does not double", waited)
	}
}

// An overloaded registry's Retry-After sets the pause before the retry
// when it is longer than the backoff.
func TestRetryHonoursRetryAfter(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	registrytest.Register(t, r.Client(t, ""), registrytest.Echo("alpha"), "r1", 1, false)
	proxy := newFaultProxy(t, r.URL, func(w http.ResponseWriter, _ *http.Request, n int, _ http.Handler) bool {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("goa-error", registry.ErrOverloaded)
			http.Error(w, `{"name":"overloaded"}`, http.StatusTooManyRequests)
			return true
		}
		return false
	})
	c, err := registry.NewClient(proxy.URL, registry.WithRetry(2, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Resolve(context.Background(), registry.ResolveRequest{}); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Fatalf("retried after %s: Retry-After asked for 1s", waited)
	}
}

// When the retries run out, the last answer is the error, with its name.
func TestRetryGivesUpWithTheLastAnswer(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	proxy := newFaultProxy(t, r.URL, func(w http.ResponseWriter, _ *http.Request, _ int, _ http.Handler) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("goa-error", "unavailable")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"name":"unavailable","id":"x","message":"the store is down","temporary":true,"timeout":false,"fault":false}`))
		return true
	})
	c, err := registry.NewClient(proxy.URL, registry.WithRetry(2, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
	if registry.ErrorName(err) != registry.ErrUnavailable {
		t.Fatalf("%v", err)
	}
	if n := proxy.count("GET /v1/toolsets"); n != 3 {
		t.Fatalf("%d requests, want the first and 2 retries", n)
	}
}

// A call is retried (its call id makes it idempotent): a gateway that lost
// the registry's answer costs a retry that reads the recorded outcome, and
// the tool runs once.
func TestRetryRepeatsACallWhoseAnswerWasLost(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	direct := r.Client(t, "")
	counter := registrytest.NewCounter()
	registrytest.Serve(t, direct, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, counter)
	ts := registrytest.WaitProviders(t, direct, "echo", 1)
	proxy := newFaultProxy(t, r.URL, func(w http.ResponseWriter, req *http.Request, n int, forward http.Handler) bool {
		if req.URL.Path != "/v1/calls" || n > 2 {
			return false
		}
		if n == 2 { // the registry ran it; the answer is lost on the way back
			forward.ServeHTTP(discard{}, req)
		}
		http.Error(w, "gateway timeout", http.StatusGatewayTimeout)
		return true
	})
	c, err := registry.NewClient(proxy.URL, registry.WithRetry(3, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	out, err := registrytest.Call(c, "echo", "echo", ts.Token, "call-1", `{"text":"once"}`, 5*time.Second)
	if err != nil || out.Outcome != "ok" {
		t.Fatalf("%+v %v", out, err)
	}
	if got, _ := json.Marshal(out.Result); string(got) != `{"text":"once"}` {
		t.Fatalf("result %s", got)
	}
	if n := proxy.count("POST /v1/calls"); n != 3 || counter.Runs("call-1") != 1 {
		t.Fatalf("%d requests, %d runs: want 3 requests and 1 run", n, counter.Runs("call-1"))
	}
}

// Requests that are not safe to repeat are sent once, and the registry's
// own answers (outcome_unknown is a 502) are not retried.
func TestRetryLeavesUnsafeRequestsAndAnswersAlone(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	proxy := newFaultProxy(t, r.URL, func(w http.ResponseWriter, req *http.Request, _ int, _ http.Handler) bool {
		switch req.URL.Path {
		case "/v1/registrations":
			unavailable(w)
		case "/v1/calls":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("goa-error", "outcome_unknown")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(`{"name":"outcome_unknown","id":"x","message":"the provider ended","temporary":false,"timeout":false,"fault":false}`))
		default:
			return false
		}
		return true
	})
	c, err := registry.NewClient(proxy.URL, registry.WithRetry(3, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	reg := registrytest.Echo("echo")
	raw, _ := json.Marshal(reg)
	_, err = c.Register(context.Background(), &gen.RegisterPayload{Kind: "tool_schemas", Toolset: json.RawMessage(raw), Fingerprint: "sha256:00", Revision: "r1", Execution: "service", MaxInFlight: 1})
	if err == nil || proxy.count("POST /v1/registrations") != 1 {
		t.Fatalf("register: %v, %d requests", err, proxy.count("POST /v1/registrations"))
	}
	_, err = registrytest.Call(c, "echo", "echo", "qrt1_00", "call-1", `{"text":"x"}`, time.Second)
	if registry.ErrorName(err) != registry.ErrOutcomeUnknown || proxy.count("POST /v1/calls") != 1 {
		t.Fatalf("call: %v, %d requests", err, proxy.count("POST /v1/calls"))
	}
}

// The caller's context bounds the retries.
func TestRetryStopsWithTheContext(t *testing.T) {
	proxy := newFaultProxy(t, "http://127.0.0.1:1", func(w http.ResponseWriter, _ *http.Request, _ int, _ http.Handler) bool {
		unavailable(w)
		return true
	})
	c, err := registry.NewClient(proxy.URL, registry.WithRetry(5, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.Resolve(ctx, registry.ResolveRequest{})
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "context deadline exceeded") || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %s", err, time.Since(start))
	}
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}

// stall holds a request until the client gives up on it.
func stall(_ http.ResponseWriter, req *http.Request) {
	<-req.Context().Done()
}

// WithTimeout bounds each request; with WithRetry a stalled attempt is
// retried.
func TestTimeoutBoundsEachRequest(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	proxy := newFaultProxy(t, r.URL, func(w http.ResponseWriter, req *http.Request, n int, _ http.Handler) bool {
		if n == 1 {
			stall(w, req)
			return true
		}
		return false
	})
	const timeout = 100 * time.Millisecond
	c, err := registry.NewClient(proxy.URL, registry.WithTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Resolve(context.Background(), registry.ResolveRequest{})
	if err == nil || !strings.Contains(err.Error(), "no complete answer within 100ms (WithTimeout)") || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %s", err, time.Since(start))
	}
	if _, err := c.Resolve(context.Background(), registry.ResolveRequest{}); err != nil {
		t.Fatalf("the next request: %v", err)
	}

	retried, err := registry.NewClient(newFaultProxy(t, r.URL, func(w http.ResponseWriter, req *http.Request, n int, _ http.Handler) bool {
		if n == 1 {
			stall(w, req)
			return true
		}
		return false
	}).URL, registry.WithTimeout(timeout), registry.WithRetry(1, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := retried.ListToolsets(context.Background(), &gen.ListToolsetsPayload{}); err != nil {
		t.Fatalf("a stalled attempt was not retried: %v", err)
	}
}

// A body that stalls midway is cut by the timeout too.
func TestTimeoutCoversTheAnswersBody(t *testing.T) {
	proxy := newFaultProxy(t, "http://127.0.0.1:1", func(w http.ResponseWriter, req *http.Request, _ int, _ http.Handler) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"1"`)
		_, _ = w.Write([]byte(`{"catalog_revision":1,"toolsets":[`))
		http.NewResponseController(w).Flush()
		stall(w, req)
		return true
	})
	c, err := registry.NewClient(proxy.URL, registry.WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(context.Background(), registry.ResolveRequest{})
	if err == nil || !strings.Contains(err.Error(), "(WithTimeout)") {
		t.Fatalf("%v", err)
	}
}

// The provider's call stream lasts as long as its lease, past the timeout.
func TestTimeoutSparesTheProvidersStream(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{LeaseTTL: time.Minute, PingInterval: time.Minute})
	const timeout = 100 * time.Millisecond
	c, err := registry.NewClient(r.URL, registry.WithTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	p := registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, true)
	time.Sleep(3 * timeout)
	answer := make(chan error, 1)
	go func() {
		_, err := registrytest.Call(r.Client(t, ""), "echo", "echo", p.Lease.Token, "late", `{"text":"x"}`, 5*time.Second)
		answer <- err
	}()
	select {
	case f := <-p.Frames:
		if *f.CallID != "late" {
			t.Fatalf("frame %+v", f)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream ended with the request timeout")
	}
	if _, err := p.Post("late", `{"text":"x"}`, ""); err != nil {
		t.Fatal(err)
	}
	if err := <-answer; err != nil {
		t.Fatal(err)
	}
}

// The API version replaces the routes' /v1: v1 by default, and another
// version is sent as asked, a registry that does not serve it answering a
// 404 the error explains.
func TestAPIVersionRewritesTheRoutes(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	proxy := newFaultProxy(t, r.URL, nil)
	for _, opts := range [][]registry.ClientOption{nil, {registry.WithAPIVersion("v1")}} {
		c, err := registry.NewClient(proxy.URL, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resolve(context.Background(), registry.ResolveRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := proxy.count("GET /v1/resolve"); n != 2 {
		t.Fatalf("%d requests to /v1/resolve", n)
	}
	c, err := registry.NewClient(proxy.URL+"/", registry.WithAPIVersion("v2"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(context.Background(), registry.ResolveRequest{})
	if err == nil || !strings.Contains(err.Error(), "GET /v2/resolve answered 404 Not Found") || !strings.Contains(err.Error(), `API version ("v2"; WithAPIVersion`) {
		t.Fatalf("%v", err)
	}
	_, err = c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
	if err == nil || !strings.Contains(err.Error(), "GET /v2/toolsets answered 404") || proxy.count("GET /v2/toolsets") != 1 {
		t.Fatalf("%v", err)
	}
}

// Under a base path, the version follows the base path.
func TestAPIVersionFollowsTheBasePath(t *testing.T) {
	var path string
	srv := newFaultProxy(t, "http://127.0.0.1:1", func(w http.ResponseWriter, req *http.Request, _ int, _ http.Handler) bool {
		path = req.URL.Path
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"0"`)
		_, _ = w.Write([]byte(`{"catalog_revision":0,"toolsets":[]}`))
		return true
	})
	c, err := registry.NewClient(srv.URL+"/tools/", registry.WithAPIVersion("v2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resolve(context.Background(), registry.ResolveRequest{}); err != nil || path != "/tools/v2/resolve" {
		t.Fatalf("path %q: %v", path, err)
	}
}

func TestWithBaseURLReplacesTheAddress(t *testing.T) {
	c, err := registry.NewClient("http://127.0.0.1:7420", registry.WithBaseURL("http://127.0.0.1:9/under"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.BaseURL.String(); got != "http://127.0.0.1:9/under" {
		t.Fatalf("BaseURL = %s", got)
	}
}
