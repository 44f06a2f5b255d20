// Command stdioserver serves a small toolset over MCP on its standard
// streams (mcp.Server.ServeStdio), for mcp/node_test.go: the Node SDK's
// StdioClientTransport starts it as its server.
//
// Its tools mirror the tests' ops fixture: find (read_only, listed at
// once), lookup_invoice (read_only, found by search) and stage_refund
// (staging); the client gets the anonymous tier, read_only. Every tool
// answers {"ok":true,"tool":"<name>"}.
//
// With --runs FILE it writes the executions it made to FILE after each
// one and when it exits: {"runs":{"ops.find":1},"exited":true}. Standard
// output carries the protocol; warnings go to standard error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

func main() {
	runsFile := flag.String("runs", "", "write the executions to this file (JSON) after each one and at exit")
	flag.Parse()
	if err := serve(*runsFile); err != nil {
		fmt.Fprintln(os.Stderr, "stdioserver:", err)
		os.Exit(1)
	}
}

func serve(runsFile string) error {
	specs, err := contract.CompileToolset(toolset())
	if err != nil {
		return err
	}
	exec := &counter{file: runsFile, runs: map[tools.Ident]int{}}
	if err := exec.write(false); err != nil {
		return err
	}
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: "ops", Specs: specs, Executor: exec}},
		func(id tools.Ident) bool { return id != "ops.find" })
	if err != nil {
		return err
	}
	s, err := mcp.New(mcp.Config{
		Name:      "quiver-stdio-test",
		Version:   "1",
		Source:    src,
		Anonymous: tools.ExposureReadOnly,
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.Ready(ctx); err != nil {
		return err
	}
	serveErr := s.ServeStdio(ctx, os.Stdin, os.Stdout)
	if err := exec.write(true); err != nil && serveErr == nil {
		serveErr = err
	}
	return serveErr
}

// toolset declares the tools served.
func toolset() contract.ToolsetDeclaration {
	obj := func(props, required string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":[` + required + `]}`)
	}
	out := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"},"tool":{"type":"string"}},"required":["ok"]}`)
	return contract.ToolsetDeclaration{Name: "ops", Tools: []contract.ToolDeclaration{
		{Name: "find", Title: "Find", Description: "Find a customer by name.",
			InputSchema: obj(`"name":{"type":"string"}`, `"name"`), OutputSchema: out, Exposure: tools.ExposureReadOnly},
		{Name: "lookup_invoice", Title: "Look up an invoice", Description: "Read one invoice by its number.", Keywords: []string{"bill"},
			InputSchema: obj(`"number":{"type":"integer","minimum":1}`, `"number"`), OutputSchema: out, Exposure: tools.ExposureReadOnly},
		{Name: "stage_refund", Title: "Stage a refund", Description: "Stage a refund for review.",
			InputSchema: obj(`"invoice":{"type":"integer"}`, `"invoice"`), OutputSchema: out, Exposure: tools.ExposureStaging},
	}}
}

// counter runs every tool and counts the executions.
type counter struct {
	file string

	mu   sync.Mutex
	runs map[tools.Ident]int
}

func (c *counter) Execute(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	c.mu.Lock()
	c.runs[call.Ident]++
	c.mu.Unlock()
	if err := c.write(false); err != nil {
		return nil, err
	}
	res, err := json.Marshal(map[string]any{"ok": true, "tool": call.Ident.Tool()})
	if err != nil {
		return nil, err
	}
	return &toolcall.Result{Result: res}, nil
}

// write replaces the runs file (when there is one) with the counts, so a
// reader never sees half of it.
func (c *counter) write(exited bool) error {
	if c.file == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	b, err := json.Marshal(map[string]any{"runs": c.runs, "exited": exited})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.file), ".runs-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), c.file)
}
