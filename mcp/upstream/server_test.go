package upstream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/internal/testbuild"
	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// testServer builds ../internal/testserver once per test binary (with
// -race when the test runs with it) and returns its path.
func testServer(t *testing.T) string {
	t.Helper()
	return testbuild.Binary(t, "../internal/testserver")
}

// httpServer starts the test server on streamable HTTP at addr (a free
// loopback address when empty) and returns its endpoint and process.
func httpServer(t *testing.T, addr string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	if addr == "" {
		var err error
		if addr, err = loopback.FreeAddr(); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(testServer(t), append([]string{"-http", addr}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening ") {
		t.Fatalf("the test server did not say it listens: %q, %v", line, err)
	}
	return "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening ")) + "/mcp", cmd
}

// transports are the ways the tests reach the test server.
var transports = []string{"stdio", "http"}

// connect connects to a new test server over transport, with cfg's limits.
func connect(t *testing.T, transport string, cfg upstream.Config, args ...string) *upstream.Client {
	t.Helper()
	switch transport {
	case "stdio":
		cfg.Command, cfg.Args = testServer(t), args
	case "http":
		cfg.URL, _ = httpServer(t, "", args...)
	}
	c, err := upstream.Connect(context.Background(), "test", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// call calls tool of toolset ts with payload.
func call(t *testing.T, ctx context.Context, ex toolcall.Executor, ts, tool, payload string) *toolcall.Result {
	t.Helper()
	res, err := ex.Execute(ctx, &toolcall.Call{Ident: tools.JoinIdent(ts, tool), Payload: json.RawMessage(payload)})
	if err != nil {
		t.Fatalf("Execute %s: %v", tool, err)
	}
	return res
}

// wantResult checks that res succeeded with the JSON want.
func wantResult(t *testing.T, res *toolcall.Result, want string) {
	t.Helper()
	if res.Failure != nil {
		t.Fatalf("failure %s, want result %s", res.Failure, want)
	}
	var got, exp any
	if err := json.Unmarshal(res.Result, &got); err != nil {
		t.Fatalf("result %s: %v", res.Result, err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	e, _ := json.Marshal(exp)
	if string(g) != string(e) {
		t.Fatalf("result %s, want %s", res.Result, want)
	}
}

// wantFailure checks that res failed with kind and a message holding each
// of parts.
func wantFailure(t *testing.T, res *toolcall.Result, kind toolcall.Kind, parts ...string) {
	t.Helper()
	if res.Failure == nil {
		t.Fatalf("result %s, want a %s failure", res.Result, kind)
	}
	if res.Failure.Code != kind {
		t.Fatalf("failure %s, want kind %s", res.Failure, kind)
	}
	for _, p := range parts {
		if !strings.Contains(res.Failure.Message, p) {
			t.Fatalf("failure message %q lacks %q", res.Failure.Message, p)
		}
	}
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
