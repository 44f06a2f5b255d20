package main

import (
	"strings"
	"testing"
)

func TestBenchMCP(t *testing.T) {
	r := quiver(t, "bench", "mcp", "--sessions", "3", "--duration", "500ms", "--json").mustSucceed(t)
	wantKeys(t, []byte(r.stdout), "sessions", "duration_s", "pause_ms", "tool", "query", "arguments", "protocol",
		"connect", "connect_in_memory", "loaded", "one_at_a_time", "close", "errors", "peer_errors")
	var out jsonBenchMCP
	decodeJSON(t, r.stdout, &out)
	if out.Sessions != 3 || out.DurationS < 0.5 || out.Tool != "workspace.countRows" || out.Errors.Total != 0 || out.PeerErrors != 0 ||
		out.Connect.Requests != 3 || out.OneAtATime == nil || out.OneAtATime.Sessions != 1 {
		t.Fatalf("figures:\n%s", r.stdout)
	}
	for _, p := range []*jsonBenchPhase{&out.Loaded, out.OneAtATime} {
		for _, row := range p.rows("countRows") {
			if row.k.Requests == 0 || row.k.P50Ms <= 0 || row.k.P99Ms < row.k.P50Ms || row.k.Errors != 0 {
				t.Errorf("%d sessions: %s %s: %+v", p.Sessions, row.path, row.request, row.k)
			}
		}
	}

	r = quiver(t, "bench", "mcp", "--sessions", "2", "--duration", "300ms", "--pause", "50ms").mustSucceed(t)
	for _, want := range []string{
		"sessions  2 MCP sessions over streamable HTTP on loopback for ",
		`search_tools "count rows", tools/call countRows {"table":"sales.orders","filter":"status = 'late'"}`,
		"with a pause of 50ms (±50%) after each round\n",
		"\nPATH        REQUEST       SESSIONS  REQUESTS",
		"\nhttp        tools/call    2 ", "\nin-memory   tools/call    2 ", "\nin-process  countRows     2 ",
		"\nhttp        tools/call    1 ", "\nin-process  countRows     1 ",
		"ms with 2 sessions (HTTP tools/call p50 - in-process p50; in memory: ",
		"ms one request at a time (in memory: ",
		"\nerrors        0 (transport 0, JSON-RPC 0, tool 0, unexpected 0); in-process 0\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table has no %q:\n%s", want, r.stdout)
		}
	}
}

func TestBenchMCPUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sessions", "0"}, "quiver: --sessions 0: want at least 1"},
		{[]string{"--sessions", "many"}, `quiver: --sessions "many": want an integer`},
		{[]string{"--duration", "0s"}, "quiver: --duration 0s: want a positive duration such as 60s"},
		{[]string{"--duration", "-1s"}, "quiver: --duration -1s: want a positive duration such as 60s"},
		{[]string{"--duration", "60"}, `quiver: --duration "60": want a duration such as 30s or 2m`},
		{[]string{"--pause", "-1ms"}, "quiver: --pause -1ms: want 0 or a positive duration such as 250ms"},
		{[]string{"extra"}, `quiver: unknown command "extra" for "quiver bench mcp"`},
	} {
		r := quiver(t, append([]string{"bench", "mcp"}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want exit %d and %q", tc.args, r.code, r.stdout, r.stderr, exitUsage, tc.want)
		}
	}
}
