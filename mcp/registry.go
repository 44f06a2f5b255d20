package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools/contract"
)

// Registry serves the whole catalog of the registry client reaches, kept
// current through its change feed; its tools are found by search (unless
// Config.ExposeAll). A call goes through CallResolvedTool with the token
// of the registration listed when the catalog was read, and a call id
// unique to this process and call, so a retry runs it once.
func Registry(client *registry.Client) Source {
	nonce := make([]byte, 6)
	_, _ = rand.Read(nonce)
	return &registrySource{client: client, nonce: hex.EncodeToString(nonce), compiled: map[string]*registryToolset{}}
}

type registrySource struct {
	client *registry.Client
	nonce  string

	mu       sync.Mutex
	revision int64
	tools    []Tool
	compiled map[string]*registryToolset // by toolset name
}

// registryToolset is one resolved toolset compiled, reused while its
// registration stays the same.
type registryToolset struct {
	resolved registry.ResolvedToolset
	tools    []Tool
}

// Tools implements Source: one conditional read, then a change feed poll
// that closes the returned channel when the catalog moves on.
func (r *registrySource) Tools(ctx context.Context) ([]Tool, <-chan struct{}, error) {
	r.mu.Lock()
	known := r.revision
	r.mu.Unlock()
	res, err := r.client.Resolve(ctx, registry.ResolveRequest{Known: known})
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: read the registry's catalog: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !res.NotModified {
		var list []Tool
		seen := map[string]bool{}
		for _, ts := range res.Toolsets {
			c, err := r.compile(ts)
			if err != nil {
				return nil, nil, err
			}
			seen[ts.Name] = true
			list = append(list, c.tools...)
		}
		for name := range r.compiled {
			if !seen[name] {
				delete(r.compiled, name)
			}
		}
		r.tools, r.revision = list, res.Revision
	}
	changed := make(chan struct{})
	go r.watch(ctx, r.revision, changed)
	return r.tools, changed, nil
}

// watch closes changed once the catalog is past revision (or ctx ends).
func (r *registrySource) watch(ctx context.Context, revision int64, changed chan struct{}) {
	defer close(changed)
	for ctx.Err() == nil {
		res, err := r.client.Changes(ctx, &gen.ChangesPayload{After: revision, WaitMs: 30000})
		if err != nil {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
			continue
		}
		if res.Revision > revision || res.Reset {
			return
		}
	}
}

// compile returns the tools of a resolved toolset, compiled once per
// registration.
func (r *registrySource) compile(ts registry.ResolvedToolset) (*registryToolset, error) {
	if c := r.compiled[ts.Name]; c != nil && c.resolved.Fingerprint == ts.Fingerprint && c.resolved.Token == ts.Token {
		return c, nil
	}
	decl := ts.Declaration
	decl.Name = ts.Name
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		return nil, fmt.Errorf("mcp: registry toolset %q: %w", ts.Name, err)
	}
	c := &registryToolset{resolved: ts}
	for _, spec := range specs {
		c.tools = append(c.tools, Tool{Spec: spec, Deferred: true, Run: r.runner(ts)})
	}
	r.compiled[ts.Name] = c
	return c, nil
}

// runner calls a registry tool with the token of the registration read.
func (r *registrySource) runner(ts registry.ResolvedToolset) func(context.Context, *runtime.ToolCall) (*planner.ToolResult, error) {
	return func(ctx context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
		return runtime.CallRegistry(ctx, r.client, ts.Token, "mcp-"+r.nonce+"-"+call.Meta.ToolCallID, call)
	}
}
