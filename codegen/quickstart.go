package codegen

import (
	"slices"

	goacodegen "goa.design/goa/v3/codegen"
)

// quickstartData is what AGENTS_QUICKSTART.md renders.
type quickstartData struct {
	// GenPkg is the import path of the gen package.
	GenPkg string
	// Agents are the generated agent packages.
	Agents []*agentData
	// Toolsets are the generated toolset packages.
	Toolsets []*toolsetData
	// Nested is set when a toolset is declared inline in a Use or an
	// Export, its package then lying outside gen/toolsets.
	Nested bool
	// Registries is set when an agent consumes a registry source.
	Registries bool
	// Local are the toolsets of Toolsets an application executes; MCP
	// those an MCP server serves. An agent's inline export is in neither:
	// its calls run the exporting agent.
	Local, MCP []*toolsetData
	// AgentTools are the agenttools packages of the agents' exports.
	AgentTools []*agentToolsData
	// Completions are the completions packages of the services.
	Completions []*completionsData
}

// quickstartFile returns AGENTS_QUICKSTART.md, at the root of the output
// directory.
func quickstartFile(genpkg string, agents []*agentData, toolsets []*toolsetData, agentTools []*agentToolsData, completions []*completionsData) *goacodegen.File {
	nested, registries := false, false
	for _, ts := range toolsets {
		nested = nested || ts.Expr.Inline
	}
	for _, a := range agents {
		registries = registries || len(a.Registries) > 0
	}
	var local, mcp []*toolsetData
	for _, ts := range toolsets {
		switch {
		case ts.MCP != nil:
			mcp = append(mcp, ts)
		case !agentInlineExport(ts, agentTools):
			local = append(local, ts)
		}
	}
	return &goacodegen.File{
		Path: "AGENTS_QUICKSTART.md",
		SectionTemplates: []*goacodegen.SectionTemplate{{
			Name:    "quiver-agents-quickstart",
			Source:  quickstartT,
			Data:    &quickstartData{GenPkg: genpkg, Agents: agents, Toolsets: toolsets, Nested: nested, Registries: registries, Local: local, MCP: mcp, AgentTools: agentTools, Completions: completions},
			FuncMap: funcs,
		}},
	}
}

// Searches reports whether a's quickstart sets portable search: the agent
// defers compiled tools or a registry source.
func (d *quickstartData) Searches(a *agentData) bool {
	if len(a.Deferred) > 0 {
		return true
	}
	for _, r := range a.Registries {
		if r.DeferAll {
			return true
		}
	}
	return false
}

// Compresses reports whether a's run policy compresses history, which
// needs a HistoryModel.
func (d *quickstartData) Compresses(a *agentData) bool {
	p := a.Expr.RunPolicy
	return p != nil && p.History != nil && p.History.Compresses()
}

// Labels returns the run labels a's compiled toolsets need, sorted.
func (d *quickstartData) Labels(a *agentData) []string {
	var out []string
	for _, u := range a.Uses {
		out = append(out, u.Toolset.RequiredLabels...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LocalUses reports whether a consumes a toolset the application executes
// (not served by MCP, not an agent toolset).
func (d *quickstartData) LocalUses(a *agentData) bool {
	for _, u := range a.Uses {
		if !u.MCP && u.AgentTools == nil {
			return true
		}
	}
	return false
}

// agentInlineExport reports whether ts is declared inline in an agent's
// Export: only AgentToolset consumes it, and its calls run the agent.
func agentInlineExport(ts *toolsetData, agentTools []*agentToolsData) bool {
	for _, at := range agentTools {
		if at.Toolset == ts && at.Export.Inline != nil {
			return true
		}
	}
	return false
}

// ExportedBy returns the agenttools packages of the agents exporting ts.
func (d *quickstartData) ExportedBy(ts *toolsetData) []*agentToolsData {
	var out []*agentToolsData
	for _, at := range d.AgentTools {
		if at.Toolset == ts {
			out = append(out, at)
		}
	}
	return out
}
