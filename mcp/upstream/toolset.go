package upstream

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// Toolset is a toolset built on an upstream server: its compiled specs,
// the tools left out and why, and the executor that calls the server.
type Toolset struct {
	// Name is the toolset's name: every spec's ident is Name + "." + tool.
	Name string
	// Specs are the tools' contracts, in the server's order.
	Specs []tools.ToolSpec
	// Skipped are the server's tools left out, and why.
	Skipped []SkippedTool
	// Names maps each spec's tool name to the server's name for the tool
	// (different only where the server's name has dots: see [ToolName]).
	Names map[string]string
	// Executor calls the server: the [*Client] the toolset was built on.
	Executor toolcall.Executor
}

// SkippedTool is an upstream tool left out of a toolset, and why.
type SkippedTool struct {
	// Name is the server's name for the tool.
	Name string
	// Reason says why it was left out.
	Reason string
}

// ListedToolset compiles whatever the server lists into toolset name
// (runtime-defined: no design), skipping and reporting the tools whose
// names ([ToolName]) or schemas ([contract.Compile]) cannot be compiled:
// a tool is in Specs whole or in Skipped, never half-registered. Each tool
// gets its server's title (its tool name when it has none), description,
// input schema and output schema (the result's schema). Register it with
// rt.RegisterToolset(runtime.ToolsetRegistration{Name: ts.Name, Specs:
// ts.Specs, Executor: ts.Executor}).
//
// The names of the toolset are the client's from then on: [Client.Execute]
// maps a call of name's tools through them.
func (c *Client) ListedToolset(ctx context.Context, name string) (*Toolset, error) {
	decl, skipped, err := c.ListedDeclaration(ctx, name)
	if err != nil {
		return nil, err
	}
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		return nil, fmt.Errorf("upstream: server %q: %w", c.name, err)
	}
	c.mu.Lock()
	names := maps.Clone(c.names[name])
	c.mu.Unlock()
	return &Toolset{Name: name, Specs: specs, Skipped: skipped, Names: names, Executor: c}, nil
}

// ListedDeclaration is [Client.ListedToolset] before compilation: the
// runtime-defined declaration of what the server lists, as a provider
// publishes it to a registry (registry.Registration), and the tools left
// out. Every declaration it holds passed [contract.Check]. The toolset's
// names are the client's from then on, as with ListedToolset.
func (c *Client) ListedDeclaration(ctx context.Context, name string) (contract.ToolsetDeclaration, []SkippedTool, error) {
	listed, err := c.Tools(ctx)
	if err != nil {
		return contract.ToolsetDeclaration{}, nil, err
	}
	names, skipped := mapNames(name, listed)
	ours := make(map[string]string, len(names))
	for k, v := range names {
		ours[v] = k
	}
	decl := contract.ToolsetDeclaration{Name: name}
	for _, t := range listed {
		tool, ok := ours[t.Name]
		if !ok {
			continue
		}
		title := strings.TrimSpace(t.Title)
		if title == "" {
			title = tool
		}
		d := contract.ToolDeclaration{
			Toolset: name, Name: tool, Title: title, Description: t.Description,
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
		}
		if err := contract.Check(d); err != nil {
			skipped = append(skipped, SkippedTool{Name: t.Name, Reason: strings.TrimPrefix(err.Error(), "contract: ")})
			delete(names, tool)
			continue
		}
		decl.Tools = append(decl.Tools, d)
	}
	c.mu.Lock()
	c.names[name] = names
	c.mu.Unlock()
	return decl, skipped, nil
}

// bind records the toolset's names in c and returns it.
func (c *Client) bind(name string, specs []tools.ToolSpec, skipped []SkippedTool, names map[string]string) *Toolset {
	c.mu.Lock()
	c.names[name] = maps.Clone(names)
	c.mu.Unlock()
	return &Toolset{Name: name, Specs: specs, Skipped: skipped, Names: names, Executor: c}
}

// DeclaredToolset binds declared specs (a FromExternalMCP or FromMCP
// toolset's generated specs) to the server: each declared tool must be
// listed by the server (under its name or the name [ToolName] maps to it)
// with the same input schema after normalization (see [DriftError]);
// otherwise the whole toolset is refused with a [*DriftError] reporting
// every tool that differs, and nothing is called. The tools the server
// lists beyond the declared ones are ignored. The specs are returned as
// given (every one in toolset name, else an error).
func (c *Client) DeclaredToolset(ctx context.Context, name string, specs []tools.ToolSpec) (*Toolset, error) {
	for _, s := range specs {
		if s.Name.Toolset() != name {
			return nil, fmt.Errorf("upstream: server %q: declared tool %s is not in toolset %q", c.name, s.Name, name)
		}
	}
	listed, err := c.Tools(ctx)
	if err != nil {
		return nil, err
	}
	names, _ := mapNames(name, listed)
	byName := make(map[string]Tool, len(listed))
	for _, t := range listed {
		byName[t.Name] = t
	}
	drift := &DriftError{Server: c.name, Toolset: name}
	bound := make(map[string]string, len(specs))
	for _, s := range specs {
		tool := s.Name.Tool()
		upstream, ok := names[tool]
		if !ok {
			drift.Tools = append(drift.Tools, ToolDrift{Tool: tool, Missing: true})
			continue
		}
		diff, err := schemaDiff(s, byName[upstream].InputSchema)
		if err != nil {
			return nil, fmt.Errorf("upstream: server %q: toolset %q: tool %q: %w", c.name, name, tool, err)
		}
		if len(diff) > 0 {
			drift.Tools = append(drift.Tools, ToolDrift{Tool: tool, Diff: diff})
			continue
		}
		bound[tool] = upstream
	}
	if len(drift.Tools) > 0 {
		return nil, drift
	}
	out := make([]tools.ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = s.Clone()
	}
	return c.bind(name, out, nil, bound), nil
}
