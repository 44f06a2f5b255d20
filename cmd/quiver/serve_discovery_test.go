package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/bench"
)

// runBinary runs the quiver binary with env and args to its end.
func runBinary(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return result{stdout.String(), stderr.String(), code}
}

// TestRegistryCommandsFindQuiverServe runs quiver serve as a user would,
// with no QUIVER_* variable: quiver registry ls and call, given no flag,
// find its registry and key through its data folder's endpoints file;
// $QUIVER_REGISTRY_URL still wins over the file. Once the server is killed
// (SIGKILL, so the file stays), the next command says quiver serve is not
// running, within a second.
func TestRegistryCommandsFindQuiverServe(t *testing.T) {
	bin := quiverBinary(t)
	xdg := t.TempDir()
	env := userEnv(xdg)
	p := startQuiverProcessEnv(t, bin, env, "serve", "--addr", "127.0.0.1:0")
	regURL := bannerRegistryURL(t, p.stdout.String())
	// Clients are told the binary's own path, and the registry commands
	// need no flag.
	for _, want := range []string{`"command": "` + bin + `"`, "registry        " + bin + " registry ls\n"} {
		if !strings.Contains(p.stdout.String(), want) {
			t.Errorf("the banner has no %q:\n%s", want, p.stdout.String())
		}
	}

	dir := filepath.Join(xdg, "quiver")
	if fi, err := os.Stat(filepath.Join(dir, endpointsFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("endpoints file: %v, %v: want it, mode 0600", fi, err)
	}
	ep, err := readEndpoints(dir)
	if err != nil || ep == nil {
		t.Fatalf("endpoints file: %+v, %v", ep, err)
	}
	if ep.PID != p.cmd.Process.Pid || ep.Registry != regURL || ep.MCP != mcpURL(t, p.stdout.String()) || ep.Stdio || ep.Version == "" || ep.Started.IsZero() {
		t.Errorf("endpoints file %+v: want pid %d, registry %s and the banner's MCP URL", ep, p.cmd.Process.Pid, regURL)
	}
	readKeyFile(t, filepath.Join(dir, consumerKeyFile))

	ls := runBinary(t, bin, env, "registry", "ls")
	if ls.code != 0 || !strings.Contains(ls.stdout, "registry  "+regURL) || !strings.Contains(ls.stdout, "workspace") {
		t.Fatalf("quiver registry ls: exit %d\nstdout:\n%s\nstderr:\n%s", ls.code, ls.stdout, ls.stderr)
	}
	call := runBinary(t, bin, env, "registry", "call", "workspace.listTables", "--payload", "{}")
	if call.code != 0 || !strings.Contains(call.stdout, "sales.orders") {
		t.Fatalf("quiver registry call: exit %d\nstdout:\n%s\nstderr:\n%s", call.code, call.stdout, call.stderr)
	}
	// The environment comes before the endpoints file.
	other := runBinary(t, bin, append(env, envRegistryURL+"=http://127.0.0.1:1"), "registry", "ls")
	if other.code != exitError || !strings.Contains(other.stderr, "http://127.0.0.1:1") {
		t.Errorf("with $%s: exit %d, stderr %q: want the variable's registry", envRegistryURL, other.code, other.stderr)
	}

	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	p.stopped = true
	start := time.Now()
	dead := runBinary(t, bin, env, "registry", "ls")
	took := time.Since(start)
	if dead.code != exitError || !strings.Contains(dead.stderr, "quiver serve is not running (pid "+fmt.Sprint(ep.PID)) || !strings.Contains(dead.stderr, "start it with `quiver serve`") {
		t.Errorf("after SIGKILL: exit %d, stderr %q: want quiver serve is not running", dead.code, dead.stderr)
	}
	if took > time.Second {
		t.Errorf("after SIGKILL, quiver registry ls took %v to fail: want within a second", took)
	}
}

// TestRegistryCallOnAToolsetWithoutProviderFailsAtOnce publishes a second
// toolset to quiver serve's registry and stops its provider: a call to it
// fails at once, naming the toolset and what to do, rather than waiting
// for its deadline.
func TestRegistryCallOnAToolsetWithoutProviderFailsAtOnce(t *testing.T) {
	bin := quiverBinary(t)
	xdg := t.TempDir()
	env := userEnv(xdg)
	p := startQuiverProcessEnv(t, bin, env, "serve", "--addr", "127.0.0.1:0")
	provider, err := registry.NewClient(bannerRegistryURL(t, p.stdout.String()),
		registry.WithAPIKey(readKeyFile(t, filepath.Join(xdg, "quiver", adminKeyFile))))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- registry.Serve(ctx, provider, registry.Registration{Toolset: bench.Toolset(), Revision: "r1", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, bench.NewCounter())
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := provider.WaitServed(wctx, bench.ToolsetName, "r1"); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := runBinary(t, bin, env, "registry", "call", "bench.echo", "--payload", `{"text":"hi"}`)
	if r.code != exitError || !strings.Contains(r.stderr, "toolset bench has no provider serving it") || time.Since(start) > 5*time.Second {
		t.Errorf("exit %d after %v, stderr %q: want at once: toolset bench has no provider", r.code, time.Since(start), r.stderr)
	}
}

// stdioServe starts quiver serve --stdio with env as an MCP client's
// subprocess and connects to it.
func stdioServe(t *testing.T, bin string, env []string) *mcpSession {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--stdio")
	cmd.Env = env
	return connectMCP(t, &sdk.CommandTransport{Command: cmd})
}

// TestServeStdioAttachesToRunningHTTPServe starts quiver serve (HTTP), then
// quiver serve --stdio on the same data folder: the stdio one attaches to
// the first's registry, so a client calls tools through it while the HTTP
// one serves; a third on the first's address says quiver serve runs there.
// Once the HTTP server stops, the stdio client's call is answered with an
// MCP tool error carrying why, not a closed connection.
func TestServeStdioAttachesToRunningHTTPServe(t *testing.T) {
	bin := quiverBinary(t)
	env := userEnv(t.TempDir())
	p := startQuiverProcessEnv(t, bin, env, "serve", "--addr", "127.0.0.1:0")
	url := mcpURL(t, p.stdout.String())
	stdio := stdioServe(t, bin, env)
	searchAndCall(t, stdio)
	searchAndCall(t, connectMCP(t, httpTransport(url, "")))

	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	again := runBinary(t, bin, env, "serve", "--addr", addr)
	if again.code != exitError || !strings.Contains(again.stderr, "quiver serve is already running at "+url) {
		t.Errorf("a second quiver serve on %s: exit %d, stderr %q: want quiver serve is already running there", addr, again.code, again.stderr)
	}

	pid := p.cmd.Process.Pid
	if code := p.stop(t); code != 0 {
		t.Fatalf("the HTTP quiver serve exited %d:\n%s", code, p.stderr.String())
	}
	text, isErr := stdio.call(t, "listTables", map[string]any{})
	if !isErr || !strings.Contains(text, fmt.Sprintf("attached to (pid %d, %s) stopped", pid, url)) || !strings.Contains(text, "restart quiver serve") {
		t.Fatalf("listTables after the HTTP server stopped = %s (error %v): want an error saying it stopped", text, isErr)
	}
	var failure struct{ Error string }
	if err := json.Unmarshal([]byte(text), &failure); err != nil || failure.Error != "tool_unavailable" {
		t.Errorf("the failure %s is not a tool_unavailable failure (%v)", text, err)
	}
}

// TestServeHTTPAttachesToRunningStdio starts quiver serve --stdio, then
// quiver serve (HTTP) on the same data folder: the HTTP one attaches to the
// stdio one's registry and serves its tools, and both answer calls.
func TestServeHTTPAttachesToRunningStdio(t *testing.T) {
	bin := quiverBinary(t)
	env := userEnv(t.TempDir())
	stdio := stdioServe(t, bin, env)
	searchAndCall(t, stdio)
	p := startQuiverProcessEnv(t, bin, env, "serve", "--addr", "127.0.0.1:0")
	if !strings.Contains(p.stdout.String(), "attached  to the quiver serve already running") {
		t.Errorf("the HTTP quiver serve did not attach:\n%s", p.stdout.String())
	}
	searchAndCall(t, connectMCP(t, httpTransport(mcpURL(t, p.stdout.String()), "")))
	if text, isErr := stdio.call(t, "listTables", map[string]any{}); isErr {
		t.Errorf("the stdio client's call after the HTTP one attached: %s", text)
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("the attached quiver serve exited %d:\n%s", code, p.stderr.String())
	}
}

func TestIsGoRunBuild(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build1234567/b001/exe/quiver":       true,
		"/home/you/go/bin/quiver":                    false,
		"/tmp/go-build1234567/quiver":                false,
		"/var/folders/x/T/go-build9/b001/exe/qv":     true,
		"/root/.cache/go-build/a3/a3a4b05b-d/quiver": true,
		"/root/.cache/go-build/a3/quiver":            false,
	} {
		if got := isGoRunBuild(exe); got != want {
			t.Errorf("isGoRunBuild(%q) = %v, want %v", exe, got, want)
		}
	}
}

// TestStaleEndpointsFileIsReportedAtOnce: an endpoints file naming a live
// process whose registry refuses connections (its port closed), and one
// naming a process that has exited, each make the registry commands say
// quiver serve is not running, at once.
func TestStaleEndpointsFileIsReportedAtOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		pid  int
		want string
	}{
		{"registry refuses", os.Getpid(), "its registry %s refuses connections"},
		{"process exited", exitedPID(t), "the process has exited"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.pid != os.Getpid() && runtime.GOOS == "windows" {
				t.Skip("no process probe on Windows: the registry's dial decides")
			}
			dir := t.TempDir()
			url := "http://" + registrytest.FreeAddr(t)
			if err := writeEndpoints(dir, &serveEndpoints{PID: c.pid, Registry: url, Version: "test"}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r := quiver(t, "registry", "ls", "--data", dir)
			why := c.want
			if strings.Contains(why, "%s") {
				why = fmt.Sprintf(why, url)
			}
			want := fmt.Sprintf("quiver: quiver serve is not running (pid %d, %s: %s): start it with `quiver serve`", c.pid, url, why)
			if r.code != exitError || !strings.HasPrefix(r.stderr, want) {
				t.Errorf("exit %d, stderr %q: want 1 and %q", r.code, r.stderr, want)
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("took %v: want within a second", took)
			}
		})
	}
}

// exitedPID is the pid of a process that has exited and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(goTool(t), "version")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
