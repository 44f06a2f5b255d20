package codegen

import (
	"fmt"
	"path"

	goacodegen "goa.design/goa/v3/codegen"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
)

// toolsetPackages collects the toolset packages of a design: top-level
// local toolsets, local toolsets declared inline in an agent's Use and
// local toolsets declared inline in an Export. It places each package in
// its directory and rejects collisions: two packages in one directory, and
// two distinct toolsets sharing a name (the name is the prefix of their
// tools' idents and the key of their runtime registration).
type toolsetPackages struct {
	api    *goaexpr.APIExpr
	genpkg string
	// list holds the packages in generation order.
	list []*toolsetData
	// byExpr finds the package of a toolset.
	byExpr map[*expr.ToolsetExpr]*toolsetData
	// dirs maps each package directory to what generates it; agent
	// packages are checked against it too.
	dirs map[string]string
	// names maps each toolset name to the description of its toolset.
	names map[string]string
	// published are the publications of each local toolset a service
	// exports with PublishTo, in declaration order (collect fills it).
	published map[*expr.ToolsetExpr][]*expr.PublicationExpr
	// mcp is the package of each MCP server's method tools (collect fills
	// it).
	mcp map[*expr.MCPExpr]*toolsetData
}

// newToolsetPackages returns an empty collection for genpkg.
func newToolsetPackages(api *goaexpr.APIExpr, genpkg string) *toolsetPackages {
	return &toolsetPackages{
		api: api, genpkg: genpkg,
		byExpr:    map[*expr.ToolsetExpr]*toolsetData{},
		dirs:      map[string]string{},
		names:     map[string]string{},
		published: map[*expr.ToolsetExpr][]*expr.PublicationExpr{},
		mcp:       map[*expr.MCPExpr]*toolsetData{},
	}
}

// collect adds the packages of root's local toolsets, in this order: the
// top-level toolsets (gen/toolsets/<toolset>), then, per agent, the
// toolsets its uses declare inline (gen/agents/<service>/<agent>/toolsets/<toolset>),
// then the inline exports of agents (gen/agents/<service>/<agent>/exports/<toolset>)
// and of services (gen/<service>/exports/<toolset>), then the top-level
// MCP-backed toolsets (addMCPBacked). Registry references are left out. A toolset a service publishes to registries gets
// their PublishTo helpers (publish.go).
func (p *toolsetPackages) collect(root *expr.RootExpr) error {
	for _, pub := range root.Publications {
		// An agent's export is not published (validation rejects it), nor
		// is a provider-backed toolset (the root warns).
		if ts := pub.Export.Exported(); pub.Export.Agent == nil && ts != nil && ts.Kind() == expr.ProviderLocal {
			p.published[ts] = append(p.published[ts], pub)
		}
	}
	for _, ts := range root.Toolsets {
		if ts.Kind() != expr.ProviderLocal {
			continue
		}
		if err := p.add(ts, "toolsets", fmt.Sprintf("top-level toolset %q", ts.Name)); err != nil {
			return err
		}
	}
	servers, err := mcpToolsets(root)
	if err != nil {
		return err
	}
	for _, ts := range servers {
		m := root.MCPServerOf(ts.Tools[0].Binding.Service.Name)
		if err := p.addMCP(ts, mcpToolsetParent(m), fmt.Sprintf("the tools of MCP server %q", ts.Name), true); err != nil {
			return err
		}
		p.mcp[m] = p.byExpr[ts]
	}
	for _, ts := range root.Toolsets {
		if err := p.addMCPBacked(root, ts); err != nil {
			return err
		}
	}
	for _, a := range root.Agents {
		for _, u := range a.Uses {
			if u.Inline == nil || u.Inline.Kind() != expr.ProviderLocal {
				continue
			}
			where := fmt.Sprintf("toolset %q declared inline by %s", u.Inline.Name, a.EvalName())
			if err := p.add(u.Inline, path.Join(agentRel(a), "toolsets"), where); err != nil {
				return err
			}
		}
	}
	for _, e := range root.Exports {
		if e.Inline == nil || e.Inline.Kind() != expr.ProviderLocal {
			continue
		}
		var rel string
		switch {
		case e.Agent != nil:
			rel = path.Join(agentRel(e.Agent), "exports")
		case e.Service != nil:
			rel = path.Join(packageName(e.Service.Name), "exports")
		default:
			continue
		}
		if err := p.add(e.Inline, rel, fmt.Sprintf("toolset %q exported by %s", e.Inline.Name, e.Owner())); err != nil {
			return err
		}
	}
	return nil
}

// agentRel returns the directory of an agent's package relative to the
// gen package: agents/<service>/<agent>.
func agentRel(a *expr.AgentExpr) string {
	return path.Join("agents", packageName(a.Service.Name), packageName(a.Name))
}

// add builds the package of ts in directory parent/<package> of the gen
// package; where describes ts in errors. A toolset added before is left
// as it is.
func (p *toolsetPackages) add(ts *expr.ToolsetExpr, parent, where string) error {
	return p.addMCP(ts, parent, where, false)
}

// addMCPBacked adds the package of a top-level MCP-backed toolset, its
// mcp.go binding the specs to an upstream client; other toolsets are
// left alone. A FromExternalMCP toolset gets gen/toolsets/<toolset> from
// its declared tools. A FromMCP toolset named like its server (the
// default) shares the package of the server's method tools, so its types
// are the service's; named otherwise it gets gen/toolsets/<toolset> from
// the same methods.
func (p *toolsetPackages) addMCPBacked(root *expr.RootExpr, ts *expr.ToolsetExpr) error {
	prov := ts.Provider
	client := &mcpClientData{Kind: ts.Kind()}
	if prov != nil {
		client.Server, client.Toolset = prov.Service, prov.Toolset
	}
	where := fmt.Sprintf("top-level toolset %q (%s)", ts.Name, ts.Kind())
	switch ts.Kind() {
	case expr.ProviderExternalMCP:
	case expr.ProviderMCP:
		if m := root.MCPServerOf(prov.Service); m != nil {
			if served := p.mcp[m]; served != nil && served.Expr.Name == ts.Name {
				p.byExpr[ts] = served
				served.MCP = client
				return nil
			}
		}
	default:
		return nil
	}
	if err := p.addMCP(ts, "toolsets", where, true); err != nil {
		return err
	}
	p.byExpr[ts].MCP = client
	return nil
}

// addMCP is add; mcp reserves the names of mcp.go in the package.
func (p *toolsetPackages) addMCP(ts *expr.ToolsetExpr, parent, where string, mcp bool) error {
	if _, ok := p.byExpr[ts]; ok {
		return nil
	}
	if other, ok := p.names[ts.Name]; ok {
		return fmt.Errorf("quiver codegen: %s and %s share the name %q, which prefixes their tools' idents and registers them on the runtime: rename one", other, where, ts.Name)
	}
	data, err := buildToolset(p.api, ts, p.published[ts], mcp)
	if err != nil {
		return err
	}
	for _, pub := range data.Publications {
		pub.ClientImport = path.Join(p.genpkg, pub.ClientImport)
	}
	rel := path.Join(parent, data.Package)
	data.Dir = path.Join(goacodegen.Gendir, rel)
	data.Import = path.Join(p.genpkg, rel)
	if other, ok := p.dirs[data.Dir]; ok {
		return fmt.Errorf("quiver codegen: %s and %s both generate package %q: rename one", other, where, data.Dir)
	}
	p.dirs[data.Dir] = where
	p.names[ts.Name] = where
	p.byExpr[ts] = data
	p.list = append(p.list, data)
	return nil
}
