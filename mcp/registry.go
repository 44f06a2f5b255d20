package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/toolcall"
)

// Registry serves the whole catalog of the registry client reaches, read
// with the reader the runtime reads with ([registry.Reader]: conditional
// reads, fingerprints checked, one compilation per registration) and kept
// current through its change feed; its tools are found by search (unless
// [Config.ExposeAll]). A call goes through [registry.CallTool] with the token
// of the registration listed when the catalog was read, and a call id
// unique to this process and call, so a retry runs it once.
func Registry(client *registry.Client) Source {
	nonce := make([]byte, 6)
	_, _ = rand.Read(nonce)
	return &registrySource{reader: registry.NewReader("mcp", client), nonce: hex.EncodeToString(nonce), tools: map[*registry.CompiledToolset][]Tool{}}
}

type registrySource struct {
	reader *registry.Reader
	nonce  string

	mu    sync.Mutex
	tools map[*registry.CompiledToolset][]Tool // the tools of each compiled registration
}

// Tools implements Source: one conditional read, then a change feed poll
// that closes the returned channel when the catalog moves on.
func (r *registrySource) Tools(ctx context.Context) ([]Tool, <-chan struct{}, error) {
	read, _, err := r.reader.Read(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: read the registry's catalog: %w", err)
	}
	r.mu.Lock()
	kept := make(map[*registry.CompiledToolset][]Tool, len(read.Toolsets))
	var list []Tool
	for _, ts := range read.Toolsets {
		tools, ok := r.tools[ts]
		if !ok {
			exec := r.executor(ts.Resolved)
			for _, spec := range ts.Specs {
				tools = append(tools, Tool{Spec: spec, Deferred: true, Executor: exec})
			}
		}
		kept[ts] = tools
		list = append(list, tools...)
	}
	r.tools = kept
	r.mu.Unlock()
	changed := make(chan struct{})
	go func() {
		defer close(changed)
		_ = r.reader.WaitChange(ctx, read.Revision, time.Second)
	}()
	return list, changed, nil
}

// executor calls a registry tool with the token of the registration read.
func (r *registrySource) executor(ts registry.ResolvedToolset) toolcall.Executor {
	return toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		return registry.CallTool(ctx, r.reader.Client(), ts.Token, "mcp-"+r.nonce+"-"+call.Meta.ToolCallID, call)
	})
}
