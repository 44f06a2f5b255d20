package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// Two MCP credentials of quiver serve have separate limits: A fills its
// slots with held calls (add), A's next call is answered key_limit at once
// while B's call runs; once A's calls answer, A calls again.
func TestServeLimitsEachMCPCredential(t *testing.T) {
	const keyA, keyB = "client-a-0123456789", "client-b-0123456789"
	gate := registrytest.NewGate()
	url := limitedMCP(t, gate, map[string]tools.Exposure{keyA: tools.ExposureFull, keyB: tools.ExposureFull})
	a := connectMCP(t, httpTransport(url, keyA))
	// A second session of A shares A's limit: the credential counts.
	a2 := connectMCP(t, httpTransport(url, keyA))
	b := connectMCP(t, httpTransport(url, keyB))
	fillThenRelease(t, gate, a, a2, b)
}

// Without credentials each MCP session is a client with its own limit.
func TestServeLimitsEachMCPSessionWithoutKeys(t *testing.T) {
	gate := registrytest.NewGate()
	url := limitedMCP(t, gate, nil)
	a := connectMCP(t, httpTransport(url, ""))
	fillThenRelease(t, gate, a, a, connectMCP(t, httpTransport(url, "")))
}

// limitedMCP serves Echo("echo") over MCP with quiver serve's client
// limit of 2, its add tool held at gate, and returns its URL.
func limitedMCP(t *testing.T, gate *registrytest.Gate, creds map[string]tools.Exposure) string {
	t.Helper()
	exec := toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		if call.Ident.Tool() == "add" {
			return gate.Execute(ctx, call)
		}
		return &toolcall.Result{Result: json.RawMessage(`{"text":"x"}`)}, nil
	})
	specs, err := contract.CompileToolset(registrytest.Echo("echo"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: "echo", Specs: specs, Executor: exec}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcp.Config{Source: src, ExposeAll: true, Credentials: creds, Undeclared: tools.ExposureFull}
	if len(creds) == 0 {
		cfg.Anonymous = tools.ExposureFull
	}
	wrap := newClientLimits(2, len(creds) > 0, 0).limit(&cfg)
	ms, err := mcp.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ms.Close() })
	if err := ms.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(wrap(ms.Handler()))
	t.Cleanup(hs.Close)
	return hs.URL
}

// fillThenRelease holds two calls of one client, from sessions a and a2,
// checks that a's next call is key_limit while b's runs, then releases
// them and calls from a again.
func fillThenRelease(t *testing.T, gate *registrytest.Gate, a, a2, b *mcpSession) {
	t.Helper()
	names := a.names(t)
	find := func(tool string) string {
		return names[slices.IndexFunc(names, func(n string) bool { return strings.HasSuffix(n, tool) })]
	}
	echo, add := find("echo"), find("add")

	held := make(chan string, 2)
	for _, s := range []*mcpSession{a, a2} {
		go func() {
			text, _ := s.call(t, add, map[string]any{"a": 1, "b": 2})
			held <- text
		}()
		<-gate.Started()
	}
	text, failed := a.call(t, echo, map[string]any{"text": "x"})
	if !failed || !strings.Contains(text, `"error":"key_limit"`) {
		t.Fatalf("A's third call: failed %v, %s", failed, text)
	}
	if text, failed := b.call(t, echo, map[string]any{"text": "x"}); failed {
		t.Fatalf("B's call: %s", text)
	}
	gate.Open()
	for range 2 {
		if text := <-held; strings.Contains(text, "error") {
			t.Fatalf("held call: %s", text)
		}
	}
	if text, failed := a.call(t, echo, map[string]any{"text": "x"}); failed {
		t.Fatalf("A's call after its calls answered: %s", text)
	}
}

// quiver serve's --approve is the grant of its MCP server's registry key
// and the MCP server's Approved list alike; without it the key has none.
func TestServeApproveIsTheMCPKeysGrant(t *testing.T) {
	const gated = tools.Ident("workspace.commitStagedEdits")
	k, err := newRegistryKeys(t.TempDir(), []string{string(gated)})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := k.keys.Lookup(k.consumer)
	if !p.MayConfirm(gated) || !slices.Equal(k.approved(), []tools.Ident{gated}) {
		t.Fatalf("grant %v, approved %v", p.Confirm, k.approved())
	}
	k, err = newRegistryKeys(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := k.keys.Lookup(k.consumer); p.MayConfirm(gated) || len(k.approved()) != 0 {
		t.Fatalf("without --approve: grant %v, approved %v", p.Confirm, k.approved())
	}
}
