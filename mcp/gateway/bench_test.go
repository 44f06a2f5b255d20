package gateway_test

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallGatewayVsDirect times one echo call of the test server two
// ways in the same run: direct, a Go SDK client on the server's stdio; and
// gateway, an MCP client of the gateway's MCP server calling the same
// server's echo through MCP server → registry → provider → upstream client
// → stdio. Each sub-benchmark reports every call's p50 and p99 besides
// ns/op.
//
// The gateway's client speaks streamable HTTP (mcp.Server.Handler on an
// httptest server), not the in-memory transport the other tests use: that
// is how quiver serve --upstreams serves MCP clients, so its HTTP hop is
// part of what a client pays, and it is as easy to set up.
//
// Each path is set up once per benchmark run (-count), before its first
// timed call, and shared by the sub-benchmark's N=1 probe and its timed run.
func BenchmarkCallGatewayVsDirect(b *testing.B) {
	bin := testServer(b)
	outer := b // owns the paths: they outlive each sub-benchmark's runs

	var direct *sdk.ClientSession
	b.Run("direct", func(b *testing.B) {
		if direct == nil {
			direct = dialDirect(outer, bin)
		}
		benchEcho(b, direct, "echo")
	})

	var gw *sdk.ClientSession
	b.Run("gateway", func(b *testing.B) {
		if gw == nil {
			gw = dialGateway(outer, bin)
		}
		benchEcho(b, gw, "echo")
	})
}

// dialDirect starts the test server and connects to it over stdio.
func dialDirect(t testing.TB, bin string) *sdk.ClientSession {
	t.Helper()
	cl := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil)
	cs, err := cl.Connect(context.Background(), &sdk.CommandTransport{Command: exec.Command(bin)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// dialGateway starts the gateway with the test server as its only upstream
// (so its echo goes by the bare name echo), serves its MCP server over
// streamable HTTP, connects to it, and searches for echo so that the
// deferred tool is callable.
func dialGateway(t testing.TB, bin string) *sdk.ClientSession {
	t.Helper()
	s := startStack(t, fmt.Sprintf(`{"mcpServers": {"solo": {"command": %q, "exposure": "read_only"}}}`, bin), noEnv, "")
	srv := httptest.NewServer(s.mcp.Handler())
	t.Cleanup(srv.Close)
	cl := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil)
	cs, err := cl.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	(&client{cs: cs}).find(t, "echo", "echo")
	return cs
}

// benchEcho calls tool b.N times on cs, each call timed, after one
// untimed call that checks the answer.
func benchEcho(b *testing.B, cs *sdk.ClientSession, tool string) {
	ctx := context.Background()
	params := &sdk.CallToolParams{Name: tool, Arguments: map[string]string{"text": "bench"}}
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %+v", tool, err, res)
	}
	if text := textOf(res); !strings.Contains(text, `"text":"bench"`) {
		b.Fatalf("%s = %s", tool, text)
	}
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		samples = append(samples, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", tool, err, res)
		}
	}
	b.StopTimer()
	slices.Sort(samples)
	b.ReportMetric(quantileMicros(samples, 0.50), "p50-µs")
	b.ReportMetric(quantileMicros(samples, 0.99), "p99-µs")
}

// quantileMicros is the q-quantile (nearest rank) of sorted, in µs.
func quantileMicros(sorted []time.Duration, q float64) float64 {
	i := max(int(math.Ceil(q*float64(len(sorted))))-1, 0)
	return float64(sorted[i]) / float64(time.Microsecond)
}

// textOf joins a result's text contents.
func textOf(res *sdk.CallToolResult) string {
	var parts []string
	for _, p := range res.Content {
		if tc, ok := p.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "")
}
