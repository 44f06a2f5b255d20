package gateway_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/internal/syncbuf"
	"github.com/quiver-go/quiver/internal/testbuild"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/mcp/gateway"
	"github.com/quiver-go/quiver/tools"
)

// testServer is the Go SDK MCP server of mcp/internal/testserver.
func testServer(t testing.TB) string {
	t.Helper()
	return testbuild.Binary(t, "../internal/testserver")
}

// stack is a registry, a gateway publishing to it and an MCP server
// serving its catalog.
type stack struct {
	reg *registrytest.Registry
	gw  *gateway.Gateway
	mcp *mcp.Server
	log *syncbuf.Buffer
}

// startStack parses file (an mcpServers JSON, lookup expanding its
// variables) and starts the gateway on a fresh registry, its MCP server
// giving undeclared tools tier undeclared.
func startStack(t testing.TB, file string, lookup func(string) (string, bool), undeclared tools.Exposure) *stack {
	t.Helper()
	cfg, err := gateway.ParseConfig([]byte(file), lookup)
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{reg: registrytest.Start(t, registrytest.Options{}), log: &syncbuf.Buffer{}}
	logger := slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s.gw, err = gateway.Start(context.Background(), cfg, gateway.Options{
		Provider: s.reg.Client(t, ""), Consumer: s.reg.Client(t, ""), Logger: logger,
		MinBackoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, StartTimeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.gw.Close() })
	s.mcp, err = mcp.New(mcp.Config{Source: mcp.Registry(s.reg.Client(t, "")), Anonymous: tools.ExposureReadOnly, Undeclared: undeclared, SearchBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.mcp.Close() })
	rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.mcp.Ready(rctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// status returns the gateway's status of upstream name.
func (s *stack) status(t *testing.T, name string) gateway.Status {
	t.Helper()
	for _, st := range s.gw.Status() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no upstream %q in %+v", name, s.gw.Status())
	return gateway.Status{}
}

// waitStatus waits until ok holds of upstream name's status.
func (s *stack) waitStatus(t *testing.T, name string, what string, ok func(gateway.Status) bool) gateway.Status {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := s.status(t, name)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("upstream %s never %s: %+v\nlog:\n%s", name, what, st, s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// client is an MCP client of the stack's server, over an in-memory
// transport, with the anonymous tier.
type client struct {
	cs      *sdk.ClientSession
	changed chan struct{}
}

func (s *stack) connect(t *testing.T) *client {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.mcp.ServeTransport(ctx, st)
	}()
	c := &client{changed: make(chan struct{}, 64)}
	cl := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { c.changed <- struct{}{} },
	})
	cs, err := cl.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.cs = cs
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-done
	})
	return c
}

// names lists the client's tools.
func (c *client) names(t *testing.T) []string {
	t.Helper()
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// call calls tool with args and returns its text and error flag.
func (c *client) call(t testing.TB, tool string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	var parts []string
	for _, p := range res.Content {
		if tc, ok := p.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, ""), res.IsError
}

// find searches for query until tool is callable (found now, or found
// before: the no-match answer names it), for up to 10s — the MCP server
// reads the registry's catalog a moment after the gateway published.
func (c *client) find(t testing.TB, query, tool string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, isErr := c.call(t, "search_tools", map[string]string{"query": query})
		var ans struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			Message string `json:"message"`
		}
		if !isErr && json.Unmarshal([]byte(text), &ans) == nil {
			for _, f := range ans.Tools {
				if f.Name == tool {
					return
				}
			}
			if _, list, ok := strings.Cut(ans.Message, "use one of: "); ok && slices.Contains(strings.Split(list, ", "), tool) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("search %q = %s (error %v), want %s callable", query, text, isErr, tool)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// failureKind is the kind of a failure answer ({"error": kind, …}).
func failureKind(text string) string {
	var f struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(text), &f)
	return f.Error
}

// noEnv is a lookup that finds no variable.
func noEnv(string) (string, bool) { return "", false }
