package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/httpauth"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// opsToolset is a toolset with one tool per exposure tier: find
// (read_only, inline), lookup_invoice (read_only, found by search),
// stage_refund (staging), purge_ledger (full), secret_keys (excluded),
// misc_note (undeclared), send_payment (full, needs confirmation).
func opsToolset(t *testing.T) []tools.ToolSpec {
	t.Helper()
	obj := func(props string, required ...string) json.RawMessage {
		r, _ := json.Marshal(required)
		if required == nil {
			r = []byte("[]")
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(r) + `}`)
	}
	out := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"},"tool":{"type":"string"}},"required":["ok"]}`)
	decl := contract.ToolsetDeclaration{Name: "ops", Tools: []contract.ToolDeclaration{
		{Name: "find", Title: "Find", Description: "Find a customer by name.", InputSchema: obj(`"name":{"type":"string"}`, "name"), OutputSchema: out, Exposure: tools.ExposureReadOnly},
		{Name: "lookup_invoice", Title: "Look up an invoice", Description: "Read one invoice by its number.", Keywords: []string{"bill"}, InputSchema: obj(`"number":{"type":"integer","minimum":1}`, "number"), OutputSchema: out, Exposure: tools.ExposureReadOnly},
		{Name: "stage_refund", Title: "Stage a refund", Description: "Stage a refund for review.", InputSchema: obj(`"invoice":{"type":"integer"}`, "invoice"), OutputSchema: out, Exposure: tools.ExposureStaging},
		{Name: "purge_ledger", Title: "Purge the ledger", Description: "Delete the ledger's old entries.", InputSchema: obj(``), OutputSchema: out, Exposure: tools.ExposureFull},
		{Name: "secret_keys", Title: "Secret keys", Description: "Read the signing keys.", InputSchema: obj(``), OutputSchema: out, Exposure: tools.ExposureExcluded},
		{Name: "misc_note", Title: "Note", Description: "Write a note.", InputSchema: obj(`"text":{"type":"string"}`), OutputSchema: out},
		{Name: "send_payment", Title: "Send a payment", Description: "Send money to a supplier.", InputSchema: obj(`"amount":{"type":"integer"}`, "amount"), OutputSchema: out, Exposure: tools.ExposureFull,
			Confirmation: &tools.ConfirmationSpec{Title: "Pay?"}},
	}}
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// counter counts the calls each tool ran.
type counter struct {
	mu   sync.Mutex
	runs map[tools.Ident]int
}

func (c *counter) Execute(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	c.mu.Lock()
	c.runs[call.Ident]++
	c.mu.Unlock()
	res, _ := json.Marshal(map[string]any{"ok": true, "tool": call.Ident.Tool()})
	return &toolcall.Result{Result: res}, nil
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.runs {
		n += v
	}
	return n
}

func (c *counter) of(id tools.Ident) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[id]
}

// env is a Server over opsToolset behind an HTTP test server.
type env struct {
	t      *testing.T
	server *mcp.Server
	http   *httptest.Server
	runs   *counter
}

func newEnv(t *testing.T, mutate func(*mcp.Config)) *env {
	t.Helper()
	runs := &counter{runs: map[tools.Ident]int{}}
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: "ops", Specs: opsToolset(t), Executor: runs}},
		func(id tools.Ident) bool { return id != "ops.find" })
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcp.Config{
		Source:      src,
		Credentials: map[string]tools.Exposure{"ro-key": tools.ExposureReadOnly, "staging-key": tools.ExposureStaging, "full-key": tools.ExposureFull},
	}
	if mutate != nil {
		mutate(&cfg)
	}
	e := startServer(t, cfg)
	e.runs = runs
	return e
}

// startServer starts a Server with cfg, once it has read its catalog,
// behind an HTTP test server; both stop when the test ends.
func startServer(t *testing.T, cfg mcp.Config) *env {
	t.Helper()
	s, err := mcp.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, server: s, http: newHTTP(t, s)}
}

// newHTTP serves s's handler until the test ends.
func newHTTP(t *testing.T, s *mcp.Server) *httptest.Server {
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs
}

// client is a Go SDK client session and the list_changed notifications it
// received.
type client struct {
	*sdk.ClientSession
	changes atomic.Int32
}

// connect opens a client session with key over streamable HTTP.
func (e *env) connect(key string) (*client, error) {
	c := &client{}
	sc := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { c.changes.Add(1) },
	})
	cs, err := sc.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint: e.http.URL, HTTPClient: &http.Client{Transport: httpauth.BearerTransport{Key: key}},
	}, nil)
	if err != nil {
		return nil, err
	}
	c.ClientSession = cs
	e.t.Cleanup(func() { _ = cs.Close() })
	return c, nil
}

func (e *env) mustConnect(key string) *client {
	e.t.Helper()
	c, err := e.connect(key)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// names lists the session's tools.
func (c *client) names(t *testing.T) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name)
	}
	return out
}

// call calls a tool and returns its text and whether it is an error.
func (c *client) call(t *testing.T, name string, args any) (string, bool, *sdk.CallToolResult) {
	t.Helper()
	res, err := c.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	text := ""
	for _, ct := range res.Content {
		if tc, ok := ct.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	return text, res.IsError, res
}

// waitChanges waits until the client received n list_changed
// notifications.
func (c *client) waitChanges(t *testing.T, n int32) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for c.changes.Load() < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := c.changes.Load(); got < n {
		t.Fatalf("list_changed notifications = %d, want %d", got, n)
	}
}

// failureJSON is a failed call's answer as the model reads it
// (toolcall.Failure.JSON).
type failureJSON struct {
	Error    toolcall.Kind     `json:"error"`
	Message  string            `json:"message"`
	Recovery toolcall.Recovery `json:"recovery"`
}

// failureOf parses a failed call's text; a text that is not a failure's
// JSON gives the zero value.
func failureOf(t *testing.T, text string) failureJSON {
	t.Helper()
	var f failureJSON
	_ = json.Unmarshal([]byte(text), &f)
	return f
}
