package mcp_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/tools"

	"github.com/quiver-go/quiver/mcp"
)

func TestStdioServesTheAnonymousTier(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.Anonymous = tools.ExposureReadOnly })
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.server.ServeStdio(ctx, serverIn, serverOut) }()
	changes := make(chan struct{}, 8)
	sc := sdk.NewClient(&sdk.Implementation{Name: "stdio-client", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changes <- struct{}{} },
	})
	cs, err := sc.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"find", "search_tools"}) {
		t.Fatalf("tools = %v", names)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_tools", Arguments: map[string]string{"query": "invoice"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		t.Fatal("no list_changed over stdio")
	}
	out, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "lookup_invoice", Arguments: map[string]int{"number": 3}})
	if err != nil || out.IsError {
		t.Fatalf("call: %v %+v", err, out)
	}
	_ = cs.Close()
	cancel()
	_ = clientOut.Close()
	if err := <-done; err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
}

func TestStdioNeedsAnAnonymousTier(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.server.ServeStdio(context.Background(), strings.NewReader(""), io.Discard); err == nil || !strings.Contains(err.Error(), "Config.Anonymous") {
		t.Fatalf("ServeStdio without an anonymous tier: %v", err)
	}
}

// post sends one raw JSON-RPC request body.
func post(t *testing.T, e *env, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.http.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer ro-key")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestBadInputOnTheEndpoint(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.MaxRequestBytes = 64 << 10 })
	healthy := e.mustConnect("ro-key")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	for _, c := range []struct {
		name, body string
		header     map[string]string
		status     int
		want       string
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, nil, http.StatusBadRequest, ""},
		{"not JSON-RPC", `[1,2,3]`, nil, http.StatusBadRequest, ""},
		{"huge body", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 128<<10) + `"}}`, nil, http.StatusRequestEntityTooLarge, "exceeds"},
		{"non-local Host", init, map[string]string{"Host": "evil.example"}, http.StatusForbidden, ""},
		{"no credential", init, map[string]string{"Authorization": ""}, http.StatusUnauthorized, "bearer credential"},
		{"wrong credential", init, map[string]string{"Authorization": "Bearer guess"}, http.StatusUnauthorized, "bearer credential"},
		{"unknown session", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": "nope"}, http.StatusNotFound, ""},
	} {
		resp, body := post(t, e, c.body, c.header)
		if resp.StatusCode != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want %d", c.name, resp.StatusCode, body, c.status)
		}
	}
	// An unknown method inside a session is a JSON-RPC error.
	resp, _ := post(t, e, init, nil)
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize answered %d without a session", resp.StatusCode)
	}
	post(t, e, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"})
	// The SDK refuses a method it does not handle before it reaches a
	// session, naming the method.
	resp, body := post(t, e, `{"jsonrpc":"2.0","id":3,"method":"no/such"}`, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"})
	if resp.StatusCode < 400 || resp.StatusCode >= 500 || !strings.Contains(body, `"no/such" unsupported`) {
		t.Errorf("unknown method answered %d %s", resp.StatusCode, body)
	}
	// The healthy session is still served.
	if got := healthy.names(t); len(got) == 0 {
		t.Fatal("the other session lost its tools")
	}
}

func TestRequestsOfASessionCreateNoSession(t *testing.T) {
	e := newEnv(t, nil)
	c := e.mustConnect("ro-key")
	after := e.server.Sessions()
	for range 50 {
		c.names(t)
	}
	c.call(t, "find", map[string]string{"name": "ada"})
	if got := e.server.Sessions(); got != after {
		t.Fatalf("sessions went from %d to %d over one client's requests: only a new session may create one", after, got)
	}
	if after > 2 {
		t.Fatalf("one client's connection made %d sessions", after)
	}
}

// A server without credentials (quiver serve without --keys) is reachable
// by any program on the machine, by design; a web page in the user's
// browser must not drive it: a foreign Host (DNS rebinding), a foreign
// Origin or Sec-Fetch-Site, and a body a page may send without asking are
// refused, before the body is read; the names of loopback and JSON with a
// charset are served.
func TestKeylessEndpointRefusesCrossSiteRequests(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.Credentials, c.Anonymous = nil, tools.ExposureFull })
	port := e.http.URL[strings.LastIndex(e.http.URL, ":")+1:]
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	for _, c := range []struct {
		name   string
		header map[string]string
		status int
		want   string
	}{
		{"foreign Host", map[string]string{"Host": "attacker.example:" + port}, http.StatusForbidden, "Host"},
		{"cross-site Origin", map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden, "Origin"},
		{"another port's Origin", map[string]string{"Origin": "http://127.0.0.1:1"}, http.StatusForbidden, "Origin"},
		{"Sec-Fetch-Site cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden, "Sec-Fetch-Site"},
		{"text/plain", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType, "application/json"},
		{"form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType, "application/json"},
		{"charset accepted", map[string]string{"Content-Type": "application/json; charset=utf-8"}, http.StatusOK, ""},
		{"localhost", map[string]string{"Host": "localhost:" + port}, http.StatusOK, ""},
		{"[::1]", map[string]string{"Host": "[::1]:" + port}, http.StatusOK, ""},
		{"its own Origin", map[string]string{"Origin": "http://127.0.0.1:" + port}, http.StatusOK, ""},
	} {
		c.header["Authorization"] = "" // no credential: the anonymous tier
		resp, body := post(t, e, init, c.header)
		if resp.StatusCode != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want %d", c.name, resp.StatusCode, body, c.status)
		}
	}
	// The Go SDK client, the programs' way in, is served.
	if got := e.mustConnect("").names(t); len(got) == 0 {
		t.Fatal("the SDK client lists no tool")
	}
}
