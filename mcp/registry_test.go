package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	gen "github.com/quiver-go/quiver/registry/gen/registry"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/tools"
)

// registryEnv is an MCP server over a real registry's catalog.
func registryEnv(t *testing.T) (*env, *registrytest.Registry, *registrytest.Counter, func() error) {
	t.Helper()
	reg := registrytest.Start(t, registrytest.Options{})
	counter := registrytest.NewCounter()
	stop := registrytest.Serve(t, reg.Client(t, ""), registry.Registration{Toolset: registrytest.Echo("remote"), Revision: "r1"}, counter)
	registrytest.WaitProviders(t, reg.Client(t, ""), "remote", 1)
	e := startServer(t, mcp.Config{Source: mcp.Registry(reg.Client(t, "")), Undeclared: tools.ExposureReadOnly, Anonymous: tools.ExposureReadOnly})
	return e, reg, counter, stop
}

func TestRegistryCatalogSearchedAndCalledOverMCP(t *testing.T) {
	e, reg, counter, stop := registryEnv(t)
	c := e.mustConnect("")
	if got := c.names(t); !slices.Equal(got, []string{"search_tools"}) {
		t.Fatalf("tools = %v, want only the search: registry tools are found by search", got)
	}
	text, _, _ := c.call(t, "search_tools", map[string]string{"query": "echo text"})
	if !strings.Contains(text, `"name":"echo"`) {
		t.Fatalf("search = %s", text)
	}
	c.waitChanges(t, 1)
	text, isErr, _ := c.call(t, "echo", map[string]string{"text": "over mcp"})
	if isErr || text != `{"text":"over mcp"}` {
		t.Fatalf("echo = %s (error %v)", text, isErr)
	}
	if len(counter.Snapshot()) != 1 {
		t.Fatalf("provider runs = %v", counter.Snapshot())
	}
	// The toolset leaves the registry: the session's list loses echo, and
	// the client is told.
	before := c.changes.Load()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := reg.Client(t, "").Unregister(context.Background(), &gen.UnregisterPayload{Name: "remote"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for slices.Contains(c.names(t), "echo") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := c.names(t); slices.Contains(got, "echo") {
		t.Fatalf("tools after the toolset left = %v", got)
	}
	c.waitChanges(t, before+1)
}
