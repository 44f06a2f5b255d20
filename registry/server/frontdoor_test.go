package server_test

// The front door: what a caller without a key, or with the wrong one,
// costs the registry (nothing read but headers and net/http's own drain),
// how slow and oversized bodies are cut while long streams and calls
// survive, and the cross-site checks of a keyless registry.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/store"
)

// countingListener counts the bytes the server reads from its connections.
type countingListener struct {
	net.Listener
	read   atomic.Int64
	closed chan struct{} // one value per connection closed
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

type countingConn struct {
	net.Conn
	l    *countingListener
	once atomic.Bool
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.l.read.Add(int64(n))
	return n, err
}

func (c *countingConn) Close() error {
	if c.once.CompareAndSwap(false, true) {
		c.l.closed <- struct{}{}
	}
	return c.Conn.Close()
}

// serveCounted serves svc's handler, as every node is served, on a
// counting listener.
func serveCounted(t *testing.T, svc *server.Service) (*countingListener, string) {
	t.Helper()
	ln, err := loopback.Listen()
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln, closed: make(chan struct{}, 64)}
	hs := server.HTTPServer(svc.Handler(), nil)
	go func() { _ = hs.Serve(cl) }()
	t.Cleanup(func() { _ = hs.Close() })
	return cl, ln.Addr().String()
}

// rawRequest writes a request's head on a new connection, then body in the
// background (ignoring write errors: the server may stop reading), and
// returns the response and the connection.
func rawRequest(t *testing.T, addr, head string, body io.Reader) (*http.Response, net.Conn) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	if body != nil {
		go func() { _, _ = io.Copy(conn, body) }()
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp, conn
}

// emptyObjects is a 4 MiB body of [{},{},…]: what cost 145 MB of memory a
// request when bodies were decoded before the key was checked.
func emptyObjects(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"payload":[`)
	for b.Len() < size-4 {
		b.WriteString("{},")
	}
	b.WriteString("{}]}")
	return b.Bytes()
}

func TestNothingIsReadBeforeTheKey(t *testing.T) {
	a := authStart(t)
	body := emptyObjects(4 << 20)
	// The drain net/http does itself (maxPostHandlerReadBytes) and its
	// read buffer.
	const drain, slack = 256 << 10, 16 << 10
	for _, tc := range []struct {
		name, auth string
		chunked    bool
	}{
		{name: "no key, declared length"},
		{name: "no key, chunked", chunked: true},
		{name: "wrong key", auth: "Authorization: Bearer wrong-key-0123456789\r\n"},
		{name: "basic scheme", auth: "Authorization: Basic " + authAdminKey + "\r\n", chunked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, addr := serveCounted(t, a.r.Service)
			length := fmt.Sprintf("Content-Length: %d\r\n", len(body))
			var src io.Reader = bytes.NewReader(body)
			if tc.chunked {
				length = "Transfer-Encoding: chunked\r\n"
				src = chunked(body)
			}
			head := "POST /v1/calls HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" + tc.auth + length + "\r\n"
			resp, conn := rawRequest(t, addr, head, src)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
			conn.Close()
			select {
			case <-cl.closed:
			case <-time.After(10 * time.Second):
				t.Fatal("the server never closed the connection")
			}
			t.Logf("read %d bytes of a %d-byte request (head %d)", cl.read.Load(), len(body)+len(head), len(head))
			if n := cl.read.Load(); n > int64(len(head))+drain+slack {
				t.Fatalf("the server read %d bytes of a %d-byte unauthenticated request (head %d): want at most the head, net/http's %d-byte drain and %d of buffer", n, len(body), len(head), drain, slack)
			}
		})
	}
	// The registry still serves, and nothing ran.
	out, err := registrytest.Call(a.r.Client(t, authConsumerKey), "echo", "echo", a.token, "after-the-flood", `{"text":"ok"}`, 5*time.Second)
	if err != nil || out.Outcome != "ok" {
		t.Fatalf("a call after the unauthenticated bodies: %+v %v", out, err)
	}
}

// chunked encodes b as one HTTP chunk per 64 KiB.
func chunked(b []byte) io.Reader {
	var out bytes.Buffer
	for len(b) > 0 {
		n := min(len(b), 64<<10)
		fmt.Fprintf(&out, "%x\r\n", n)
		out.Write(b[:n])
		out.WriteString("\r\n")
		b = b[n:]
	}
	out.WriteString("0\r\n\r\n")
	return &out
}

func TestSlowBodiesAreCutWhileStreamsAndWaitingCallsSurvive(t *testing.T) {
	const deadline = 500 * time.Millisecond
	keys, err := server.ParseKeys([]byte(fmt.Sprintf(`{"keys":[{"name":"root","key":%q,"role":"admin"}]}`, authAdminKey)))
	if err != nil {
		t.Fatal(err)
	}
	r := registrytest.Start(t, registrytest.Options{Keys: keys, BodyTimeout: deadline, LeaseTTL: time.Minute})
	c := r.Client(t, authAdminKey)
	counter := registrytest.NewCounter()
	registrytest.Serve(t, c, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, counter)
	token := registrytest.WaitProviders(t, c, "echo", 1).Token
	// A call that waits three deadlines for its outcome.
	waiting := async(c, "echo", "slow", token, "waits-long", `{"millis":1500}`, 10*time.Second)

	// 100 bytes at one every 100 ms: ten seconds, twenty deadlines.
	addr := strings.TrimPrefix(r.URL, "http://")
	send := func(auth string) (*http.Response, net.Conn) {
		head := "POST /v1/calls HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" + auth + "Content-Length: 100\r\n\r\n"
		return rawRequest(t, addr, head, registrytest.SlowBody(100, 100*time.Millisecond))
	}
	started := time.Now()
	resp, conn := send("")
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unauthenticated slow body: status %d, want 401", resp.StatusCode)
	}
	if _, err := conn.Read(make([]byte, 1)); err == nil || time.Since(started) > 8*time.Second {
		t.Fatalf("the connection of an unauthenticated slow body was not cut before its body ended (%v after %s)", err, time.Since(started))
	}
	resp, _ = send("Authorization: Bearer " + authAdminKey + "\r\n")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "did not arrive within 500ms") {
		t.Fatalf("authenticated slow body: %d %s, want 408 naming the deadline", resp.StatusCode, b)
	}

	if ans := <-waiting; ans.err != nil || ans.out.Outcome != "ok" {
		t.Fatalf("the call waiting longer than the body deadline: %+v %v", ans.out, ans.err)
	}
	// The provider's stream outlived the deadline too: it takes a new call.
	if out, err := registrytest.Call(c, "echo", "echo", token, "after-slow-bodies", `{"text":"x"}`, 5*time.Second); err != nil || out.Outcome != "ok" {
		t.Fatalf("a call after the slow bodies: %+v %v", out, err)
	}
	// The provider runs it under its id in the admin key's scope.
	if runs := counter.Runs(store.ScopedCallID("root", "waits-long")); runs != 1 {
		t.Fatalf("the waiting call ran %d times", runs)
	}
}

func TestBodiesReadAtOnceAreCapped(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{MaxReadingBodies: 1, BodyTimeout: 5 * time.Second})
	addr := strings.TrimPrefix(r.URL, "http://")
	// One body arriving slowly holds the only slot.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/calls HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", addr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Post(r.URL+"/v1/calls", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			if resp.Header.Get("Retry-After") == "" || resp.Header.Get("goa-error") != registry.ErrOverloaded {
				t.Fatalf("429 without Retry-After or the overloaded name: %v %s", resp.Header, b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never refused while another body was being read: last %d %s", resp.StatusCode, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDuplicateKeysAreRefusedOnTheRegistryPath(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	counter := registrytest.NewCounter()
	registrytest.Serve(t, c, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, counter)
	token := registrytest.WaitProviders(t, c, "echo", 1).Token
	for i, payload := range []string{`{"text":"a","text":"b"}`, `{"text":"a","nested":{"k":1,"k":2}}`} {
		id := fmt.Sprintf("dup-%d", i)
		_, err := registrytest.Call(c, "echo", "echo", token, id, payload, 5*time.Second)
		wantName(t, err, registry.ErrValidation)
		if !strings.Contains(err.Error(), "more than once") {
			t.Fatalf("the refusal does not name the duplicate: %v", err)
		}
		if counter.Runs(id) != 0 {
			t.Fatalf("%s ran", id)
		}
		if _, err := r.Store.GetCall(context.Background(), id); err == nil {
			t.Fatalf("%s was recorded", id)
		}
	}
}

func TestCallIDsOutsideTheAlphabetAreRefused(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	counter := registrytest.NewCounter()
	registrytest.Serve(t, c, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, counter)
	token := registrytest.WaitProviders(t, c, "echo", 1).Token
	long := strings.Repeat("x", 1<<20)
	for _, id := range []string{"a/b", "%2F", ".", "..", "a\x00b", "a\nb", long, "-leading", ""} {
		body, _ := json.Marshal(map[string]any{"toolset": "echo", "tool": "echo", "token": token, "call_id": id, "payload": map[string]string{"text": "x"}})
		resp, err := http.Post(r.URL+"/v1/calls", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e badErr
		_ = json.Unmarshal(b, &e)
		if resp.StatusCode != http.StatusBadRequest || e.Name != registry.ErrBadRequest || !strings.Contains(e.Message, "A-Z a-z 0-9 . _ : -") {
			t.Fatalf("call id %.70q: %d %s, want 400 bad_request naming the rule", id, resp.StatusCode, clip(b))
		}
		if longest := longestRun(e.Message, 'x'); longest > 64 {
			t.Fatalf("the refusal echoes %d bytes of the id", longest)
		}
		if _, err := r.Store.GetCall(context.Background(), id); err == nil {
			t.Fatalf("call id %.70q was recorded", id)
		}
	}
	// In the path, escaped or not.
	for _, path := range []string{"/v1/calls/a%2Fb/result", "/v1/calls/%2E%2E/result", "/v1/calls/a%00b", "/v1/calls/" + strings.Repeat("x", 300)} {
		method := http.MethodGet
		if strings.HasSuffix(path, "/result") {
			method = http.MethodPost
		}
		badCheck(t, r.URL, badCase{method: method, path: path, body: bodyFor(method), status: 400, errName: registry.ErrBadRequest, phrase: "A-Z a-z 0-9"})
	}
	if len(counter.Snapshot()) != 0 {
		t.Fatalf("calls ran: %v", counter.Snapshot())
	}
	if out, err := registrytest.Call(c, "echo", "echo", token, "run-1:call_1.a-b", `{"text":"x"}`, 5*time.Second); err != nil || out.Outcome != "ok" {
		t.Fatalf("a normal call after the refused ids: %+v %v", out, err)
	}
}

func bodyFor(method string) string {
	if method == http.MethodPost {
		return `{"lease_id":"x","result":{}}`
	}
	return ""
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

func TestRetryOfACallRecordedUnderTheOldDigestIsAccepted(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	token := registrytest.WaitProviders(t, c, "echo", 1).Token
	// Recorded by an earlier release: its digest hashed encoding/json's
	// re-encoding of the payload (HTML characters escaped).
	payload := `{"text":"<b>&"}`
	old := server.LegacyDigestForTest([]byte(payload))
	if !strings.HasPrefix(old, "sha256:") || !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(old) {
		t.Fatalf("legacy digest %q", old)
	}
	recordOldCall(t, r, "old-call", token, payload, old)
	_, err := registrytest.Call(c, "echo", "echo", token, "old-call", payload, 5*time.Second)
	wantName(t, err, registry.ErrCallNotAdmitted) // its recorded outcome
	_, err = registrytest.Call(c, "echo", "echo", token, "old-call", `{"text":"other"}`, 5*time.Second)
	wantName(t, err, registry.ErrCallIDConflict)
}

// recordOldCall records a call settled call_not_admitted straight in the
// store, under digest, as an earlier release recorded it.
func recordOldCall(t *testing.T, r *registrytest.Registry, id, token, payload, digest string) {
	t.Helper()
	now := time.Now()
	_, created, err := r.Store.AcceptCall(context.Background(), store.Call{
		ID: id, Toolset: "echo", Tool: "echo", Token: token, Payload: json.RawMessage(payload), Digest: digest,
		State: store.CallAccepted, AcceptedAt: now, Deadline: now.Add(time.Second),
	}, "")
	if err != nil || !created {
		t.Fatalf("accept: %v (created %v)", err, created)
	}
	if _, err := r.Store.SettleCall(context.Background(), store.Settlement{CallID: id, Outcome: store.OutcomeCallNotAdmitted, Error: "recorded by an earlier release"}); err != nil {
		t.Fatal(err)
	}
}

func TestReadyzSaysMoreOnlyToAnAdminKey(t *testing.T) {
	keys, err := server.ParseKeys([]byte(fmt.Sprintf(`{"keys":[{"name":"root","key":%q,"role":"admin"},{"name":"cons","key":%q,"role":"consumer"}]}`, authAdminKey, authConsumerKey)))
	if err != nil {
		t.Fatal(err)
	}
	r := registrytest.Start(t, registrytest.Options{Keys: keys})
	get := func(key string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, r.URL+"/readyz", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	if st, b := get(""); st != 200 || b != "ready" {
		t.Fatalf("ready: %d %q", st, b)
	}
	_ = r.Store.Close() // the store stops answering
	if st, b := get(""); st != 503 || b != "not ready" {
		t.Fatalf("without a key: %d %q, want 503 \"not ready\" and nothing more", st, b)
	}
	if st, b := get(authConsumerKey); st != 503 || b != "not ready" {
		t.Fatalf("with a consumer key: %d %q, want 503 \"not ready\" and nothing more", st, b)
	}
	if st, b := get(authAdminKey); st != 503 || !strings.Contains(b, "store") {
		t.Fatalf("with the admin key: %d %q, want the failure's detail", st, b)
	}
}

func TestKeylessRegistryRefusesCrossSiteRequests(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	registrytest.Register(t, c, registrytest.Echo("echo"), "r1", 1, false)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(r.URL, "http://"))
	registration := badRegistration(t, registrytest.Echo("other"), "r1", "", "")
	for _, tc := range []badCase{
		{name: "foreign Host, a read", method: "GET", path: "/v1/toolsets", header: [2]string{"Host", "attacker.example"}, status: 403, errName: "forbidden", phrase: "Host"},
		{name: "foreign Host with the port", method: "GET", path: "/v1/toolsets", header: [2]string{"Host", "attacker.example:" + port}, status: 403, errName: "forbidden", phrase: "Host"},
		{name: "foreign Host, a registration", method: "POST", path: "/v1/registrations", body: registration, header: [2]string{"Host", "attacker.example"}, status: 403, errName: "forbidden"},
		{name: "cross-site Origin, a call", method: "POST", path: "/v1/calls", body: `{}`, header: [2]string{"Origin", "http://attacker.example"}, status: 403, errName: "forbidden", phrase: "Origin"},
		{name: "another port's Origin", method: "POST", path: "/v1/registrations", body: registration, header: [2]string{"Origin", "http://127.0.0.1:1"}, status: 403, errName: "forbidden", phrase: "Origin"},
		{name: "cross-site Origin, a read", method: "GET", path: "/v1/toolsets", header: [2]string{"Origin", "http://attacker.example"}, status: 403, errName: "forbidden"},
		{name: "null Origin", method: "GET", path: "/v1/toolsets", header: [2]string{"Origin", "null"}, status: 403, errName: "forbidden"},
		{name: "Sec-Fetch-Site cross-site", method: "GET", path: "/v1/toolsets", header: [2]string{"Sec-Fetch-Site", "cross-site"}, status: 403, errName: "forbidden"},
		{name: "Sec-Fetch-Site same-site (another port)", method: "GET", path: "/v1/toolsets", header: [2]string{"Sec-Fetch-Site", "same-site"}, status: 403, errName: "forbidden"},
		{name: "text/plain", method: "POST", path: "/v1/registrations", body: registration, header: [2]string{"Content-Type", "text/plain"}, status: 415, errName: "bad_request", phrase: "application/json"},
		{name: "form", method: "POST", path: "/v1/calls", body: `{}`, header: [2]string{"Content-Type", "application/x-www-form-urlencoded"}, status: 415, errName: "bad_request"},
		{name: "charset accepted", method: "POST", path: "/v1/registrations", body: registration, header: [2]string{"Content-Type", "application/json; charset=utf-8"}, status: 201},
		{name: "localhost", method: "GET", path: "/v1/toolsets", header: [2]string{"Host", "localhost:" + port}, status: 200},
		{name: "[::1]", method: "GET", path: "/v1/toolsets", header: [2]string{"Host", "[::1]:" + port}, status: 200},
		{name: "the server's own Origin", method: "GET", path: "/v1/toolsets", header: [2]string{"Origin", "http://127.0.0.1:" + port}, status: 200},
	} {
		t.Run(tc.name, func(t *testing.T) { badCheck(t, r.URL, tc) })
	}
	// Nothing the refused requests sent was registered.
	if _, err := r.Store.GetCall(context.Background(), "x"); err == nil {
		t.Fatal("a call was recorded")
	}
}
