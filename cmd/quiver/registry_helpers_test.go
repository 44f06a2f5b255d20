package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/internal/syncbuf"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/bench"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools/catalogfile"
	"github.com/quiver-go/quiver/tools/contract"
)

// testRegistry is a registry served by quiver registry serve in the
// test's process, on a free loopback port and a temporary data folder,
// with two toolsets, each with a provider: bench (registry/bench's echo
// toolset, tagged bench, run by a bench.Counter) and workspace (the
// embedded workspace catalog, version 1.0.0, tagged data, run by
// workspaceExec). It starts the registry through the command itself, which
// is what these tests check; internal/registrytest starts one directly.
type testRegistry struct {
	URL     string
	counter *bench.Counter
	serving *serving
}

// startRegistry starts a testRegistry until the test ends.
func startRegistry(t *testing.T) *testRegistry {
	t.Helper()
	s := startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir())
	r := &testRegistry{URL: s.url(t), counter: bench.NewCounter(), serving: s}
	c, err := registry.NewClient(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	serveToolset(t, c, registry.Registration{Toolset: bench.Toolset(), Revision: "r1"}, r.counter)
	serveToolset(t, c, registry.Registration{Toolset: workspaceToolset(t), Revision: "w1"}, registrytest.Returning(workspaceExec))
	waitProviders(t, c, bench.ToolsetName, "workspace")
	return r
}

// serveToolset runs a provider of reg until the test ends.
func serveToolset(t *testing.T, c *registry.Client, reg registry.Registration, exec toolcall.Executor) {
	t.Helper()
	reg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- registry.Serve(ctx, c, reg, exec) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("provider of %s: %v", reg.Toolset.Name, err)
		}
	})
}

// waitProviders waits until each toolset has a provider with its stream
// connected.
func waitProviders(t *testing.T, c *registry.Client, toolsets ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		res, err := c.ListToolsets(context.Background(), &gen.ListToolsetsPayload{})
		if err == nil {
			ready := 0
			for _, ts := range res.Toolsets {
				if slices.Contains(toolsets, ts.Name) && ts.Providers > 0 {
					ready++
				}
			}
			if ready == len(toolsets) {
				// Leases are live before their streams connect.
				time.Sleep(50 * time.Millisecond)
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("toolsets %v never all had a provider", toolsets)
}

// workspaceToolset is the embedded workspace catalog as a toolset
// declaration.
func workspaceToolset(t *testing.T) contract.ToolsetDeclaration {
	t.Helper()
	c, err := catalogfile.Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile)
	if err != nil {
		t.Fatal(err)
	}
	decls, err := c.Declarations("workspace")
	if err != nil {
		t.Fatal(err)
	}
	return contract.ToolsetDeclaration{
		Name: "workspace", Version: "1.0.0", Tags: []string{"data"},
		Description: "The data workspace's tables, queries, views and exports.", Tools: decls,
	}
}

// workspaceExec answers every workspace tool with {"tool": …, "payload":
// …}, except cancelExport, which fails.
func workspaceExec(_ context.Context, call *toolcall.Call) (json.RawMessage, error) {
	if call.Ident.Tool() == "cancelExport" {
		return nil, errors.New("no export " + string(call.Payload) + " is running")
	}
	return json.Marshal(map[string]any{"tool": call.Ident.Tool(), "payload": call.Payload})
}

// server is a command that serves, running in the background.
type serving struct {
	stdout, stderr syncbuf.Buffer
	cancel         context.CancelFunc
	done           chan int
	code           int
}

// startServing runs the command line args (quiver registry serve …) until
// stop, and waits for its banner; it fails the test if the command exits
// first.
func startServing(t *testing.T, args ...string) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{cancel: cancel, done: make(chan int, 1)}
	go func() { s.done <- runContext(ctx, args, &s.stdout, &s.stderr) }()
	t.Cleanup(func() { s.stop() })
	deadline := time.After(10 * time.Second)
	for !strings.Contains(s.stdout.String(), "Serving until") {
		select {
		case code := <-s.done:
			s.done <- code
			t.Fatalf("%v exited %d before serving:\nstdout:\n%s\nstderr:\n%s", args, code, s.stdout.String(), s.stderr.String())
		case <-deadline:
			t.Fatalf("%v printed no banner in 10s:\n%s", args, s.stdout.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	return s
}

// stop ends the command as SIGINT would and returns what it printed.
func (s *serving) stop() result {
	if s.cancel != nil {
		s.cancel()
		s.code = <-s.done
		s.cancel = nil
	}
	return result{s.stdout.String(), s.stderr.String(), s.code}
}

// url is the registry's address as the banner prints it.
func (s *serving) url(t *testing.T) string {
	t.Helper()
	for line := range strings.Lines(s.stdout.String()) {
		if rest, ok := strings.CutPrefix(line, "registry  "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no registry line in the banner:\n%s", s.stdout.String())
	return ""
}

// decodeJSON decodes stdout into v.
func decodeJSON(t *testing.T, stdout string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
}
