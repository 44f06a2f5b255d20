package codegen

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	goacodegen "goa.design/goa/v3/codegen"

	"github.com/quiver-go/quiver/expr"
)

// agentData is what the templates of one agent package render.
type agentData struct {
	// Expr is the agent.
	Expr *expr.AgentExpr
	// Service is the name of the Goa service declaring the agent.
	Service string
	// Name is the name the agent registers under: "<service>.<agent>".
	Name string
	// Package is the Go package name, also the last directory of Dir.
	Package string
	// Dir is the package directory relative to the output directory.
	Dir string
	// Import is the package's import path.
	Import string
	// GoName is the agent's exported Go name ("Chat").
	GoName string
	// Uses are the consumed compiled toolsets in declaration order.
	Uses []*useData
	// Registries are the registry sources (whole registries and
	// FromRegistry toolsets) in declaration order.
	Registries []*registryUseData
	// RegistryNames are the distinct registries of Registries, in order of
	// first use.
	RegistryNames []*registryUseData
	// Deferred are the Go expressions of the idents of every deferred tool,
	// sorted by ident.
	Deferred []string
	// DeferredIdents are those idents, sorted.
	DeferredIdents []string
	// MCP is set when a use consumes an MCP-backed toolset.
	MCP bool
	// AgentTools is set when a use consumes another agent's export
	// (AgentToolset): an agent toolset, registered without an executor.
	AgentTools bool
	// Policy is the runtime.RunPolicy literal.
	Policy string
}

// useData is one toolset use of an agent package.
type useData struct {
	// Toolset is the consumed toolset's package data.
	Toolset *toolsetData
	// Import is the toolset package's import path; Alias the name the
	// agent package imports it under.
	Import, Alias string
	// Const is the name of the toolset-name constant in the agent package.
	Const string
	// Tools subsets the toolset by bare name (nil: every tool).
	Tools []string
	// DeferAll defers every consumed tool.
	DeferAll bool
	// Deferred are the bare names of the deferred tools, sorted (nil when
	// DeferAll).
	Deferred []string
	// DeferredTools are the bare names of every deferred tool, sorted,
	// DeferAll resolved.
	DeferredTools []string
	// Exporter describes the agent exporting the toolset when the use is
	// an AgentToolset reference ("" otherwise).
	Exporter string
	// AgentTools is the exporting agent's agenttools package when the use
	// is an AgentToolset reference (nil otherwise): the toolset is
	// registered as an agent toolset, whose calls run the exporting agent,
	// and takes no executor. AgentAlias is the name the agent package
	// imports it under.
	AgentTools *agentToolsData
	AgentAlias string
	// MCP is set when an MCP server serves the toolset (FromMCP,
	// FromExternalMCP): its executor is the upstream client the config
	// gives for it.
	MCP bool
}

// registryUseData is one registry source of an agent package: a whole
// registry (Use(registry)) or a FromRegistry toolset, resolved at run
// time.
type registryUseData struct {
	// Registry is the consumed registry.
	Registry *expr.RegistryExpr
	// Const is the name of the registry-name constant in the agent package.
	Const string
	// Toolset is the registry toolset a FromRegistry toolset names ("" for
	// a whole registry); DesignToolset the design's name for it.
	Toolset, DesignToolset string
	// Version is the published version the toolset is pinned to, or "".
	Version string
	// DeferAll loads the source's tools by search.
	DeferAll bool
	// ClientPackage and ClientImport are the registry's generated client
	// package (gen/registries/<registry>).
	ClientPackage, ClientImport string
	// Credential is set when the registry's client needs a credential.
	Credential bool
}

// agentReserved are the identifiers an agent package declares or imports
// besides the per-agent ones; a toolset package named like one is imported
// under another name.
var agentReserved = []string{
	"Name", "Description", "Definition", "DeferredTools", "Client", "NewClient",
	"context", "errors", "fmt", "time", "runtime", "history", "model", "planner", "toolcall", "tools",
	"toolsets", "mcpToolsets", "agentToolsets", "upstream",
}

// buildAgents computes the agent packages of root. An agent whose use
// has no generated package is skipped with a warning. Registry sources (whole
// registries and FromRegistry toolsets) become the Registries of the
// agent's Definition: their tools are resolved at run time.
// An AgentToolset use consumes the exporting agent's agenttools package
// (agentTools, by export).
func buildAgents(root *expr.RootExpr, pkgs *toolsetPackages, agentTools map[*expr.ExportExpr]*agentToolsData) ([]*agentData, error) {
	var out []*agentData
	for _, a := range root.Agents {
		if reason := unsupportedUse(a, pkgs.byExpr, agentTools); reason != "" {
			Warnings(fmt.Sprintf("code generation for %s is skipped: %s", a.EvalName(), reason))
			continue
		}
		data := &agentData{
			Expr:    a,
			Service: a.Service.Name,
			Name:    a.Service.Name + "." + a.Name,
			Package: packageName(a.Name),
			GoName:  goacodegen.Goify(a.Name, true),
		}
		data.Dir = path.Join(goacodegen.Gendir, agentRel(a))
		data.Import = path.Join(pkgs.genpkg, agentRel(a))
		if other, ok := pkgs.dirs[data.Dir]; ok {
			return nil, fmt.Errorf("quiver codegen: %s and %s both generate package %q: rename one", other, a.EvalName(), data.Dir)
		}
		pkgs.dirs[data.Dir] = a.EvalName()
		reserved := append(slices.Clone(agentReserved), data.GoName+"AgentConfig", "Register"+data.GoName+"Agent", data.Package)
		for _, u := range a.Uses {
			if reg := u.SourceRegistry(); reg != nil {
				data.addRegistryUse(u, reg, pkgs.genpkg)
				continue
			}
			ts := pkgs.byExpr[u.Consumed()]
			ud := &useData{
				Toolset:  ts,
				Import:   ts.Import,
				Alias:    ts.Package,
				Const:    "Toolset" + goacodegen.Goify(ts.Expr.Name, true),
				Tools:    slices.Clone(u.Subset),
				DeferAll: u.DeferAll,
				MCP:      ts.MCP != nil,
			}
			data.MCP = data.MCP || ud.MCP
			if r := u.AgentToolset; r != nil && r.Export != nil {
				ud.Exporter = r.Export.Owner()
				ud.AgentTools = agentTools[r.Export]
			}
			for n := 2; slices.Contains(reserved, ud.Alias); n++ {
				ud.Alias = ts.Package + "ts"
				if n > 2 {
					ud.Alias += strconv.Itoa(n)
				}
			}
			reserved = append(reserved, ud.Alias)
			if ud.AgentTools != nil {
				data.AgentTools = true
				ud.AgentAlias = ts.Package + "agent"
				for n := 2; slices.Contains(reserved, ud.AgentAlias); n++ {
					ud.AgentAlias = ts.Package + "agent" + strconv.Itoa(n)
				}
				reserved = append(reserved, ud.AgentAlias)
			}
			if !u.DeferAll {
				ud.Deferred = slices.Sorted(slices.Values(u.Deferred))
			}
			for _, name := range u.DeferredTools() {
				if ud.Tools == nil || slices.Contains(ud.Tools, name) {
					ud.DeferredTools = append(ud.DeferredTools, name)
				}
			}
			slices.Sort(ud.DeferredTools)
			data.Uses = append(data.Uses, ud)
		}
		data.Deferred, data.DeferredIdents = deferredIdents(data.Uses)
		data.Policy = policyLit(a.RunPolicy)
		out = append(out, data)
	}
	return out, nil
}

// addRegistryUse adds the registry source u of registry reg.
func (data *agentData) addRegistryUse(u *expr.UseExpr, reg *expr.RegistryExpr, genpkg string) {
	pkg := packageName(reg.Name)
	scheme, _ := reg.Credential() // validated: a registry requires one scheme at most
	ru := &registryUseData{
		Registry:      reg,
		Const:         "Registry" + goacodegen.Goify(reg.Name, true),
		DeferAll:      u.DeferAll,
		ClientPackage: pkg,
		ClientImport:  path.Join(genpkg, "registries", pkg),
		Credential:    scheme != nil,
	}
	if ts := u.Toolset; u.Registry == nil && ts != nil {
		ru.Toolset, ru.DesignToolset, ru.Version = ts.Provider.Toolset, ts.Name, ts.Version
	}
	data.Registries = append(data.Registries, ru)
	if !slices.ContainsFunc(data.RegistryNames, func(r *registryUseData) bool { return r.Registry == reg }) {
		data.RegistryNames = append(data.RegistryNames, ru)
	}
}

// unsupportedUse says why an agent's package cannot be generated yet, or
// returns "" when every use consumes a generated toolset package (a local
// toolset, top-level or inline, another agent's export of one through its
// agenttools package, or a top-level MCP-backed toolset) or a registry
// source (a whole registry or a FromRegistry toolset).
func unsupportedUse(a *expr.AgentExpr, generated map[*expr.ToolsetExpr]*toolsetData, agentTools map[*expr.ExportExpr]*agentToolsData) string {
	for _, u := range a.Uses {
		ts := u.Consumed()
		switch {
		case u.SourceRegistry() != nil:
			continue
		case ts == nil && u.AgentToolset != nil:
			return fmt.Sprintf("its use of %s is unresolved", u.AgentToolset.EvalName())
		case ts == nil:
			return "it has a use without a toolset"
		case generated[ts] == nil:
			return fmt.Sprintf("toolset %q has no generated package", ts.Name)
		case u.AgentToolset != nil && agentTools[u.AgentToolset.Export] == nil && !u.AgentToolset.Export.PassthroughOnly():
			return fmt.Sprintf("%s has no agenttools package", u.AgentToolset.EvalName())
		}
	}
	return ""
}

// deferredIdents returns the Go expressions and the idents of the deferred
// tools of uses, sorted by ident.
func deferredIdents(uses []*useData) (exprs, idents []string) {
	type pair struct{ ident, expr string }
	var ps []pair
	for _, u := range uses {
		for _, name := range u.DeferredTools {
			for _, t := range u.Toolset.Tools {
				if t.Expr.Name == name {
					ps = append(ps, pair{string(t.Spec.Name), u.Alias + "." + t.GoName})
				}
			}
		}
	}
	slices.SortFunc(ps, func(a, b pair) int { return strings.Compare(a.ident, b.ident) })
	for _, p := range ps {
		exprs = append(exprs, p.expr)
		idents = append(idents, p.ident)
	}
	return exprs, idents
}

// policyLit renders a run policy as a runtime.RunPolicy literal; nil
// renders the zero policy.
func policyLit(p *expr.RunPolicyExpr) string {
	if p == nil {
		return "runtime.RunPolicy{}"
	}
	var b strings.Builder
	b.WriteString("runtime.RunPolicy{\n")
	field := func(name, value string) { fmt.Fprintf(&b, "%s: %s,\n", name, value) }
	if p.MaxToolCalls != nil && *p.MaxToolCalls != 0 {
		field("MaxToolCalls", strconv.Itoa(*p.MaxToolCalls))
	}
	switch n := p.RuntimeMaxRecoveryTurns(); n {
	case 0:
	case -1:
		field("MaxRecoveryTurns", "runtime.NoRecoveryTurns")
	default:
		field("MaxRecoveryTurns", strconv.Itoa(n))
	}
	if p.TimeBudget != 0 {
		field("TimeBudget", durationLit(p.TimeBudget))
	}
	if t := p.Timing; t != nil {
		var parts []string
		for _, f := range []struct {
			name string
			d    time.Duration
		}{{"Budget", t.Budget}, {"Plan", t.Plan}, {"Tools", t.Tools}} {
			if f.d != 0 {
				parts = append(parts, f.name+": "+durationLit(f.d))
			}
		}
		field("Timing", "&runtime.Timing{"+strings.Join(parts, ", ")+"}")
	}
	if h := p.History; h != nil {
		field("History", historyLit(h))
	}
	if c := p.Cache; c != nil {
		field("Cache", fmt.Sprintf("model.CacheCheckpoints{AfterSystem: %t, AfterTools: %t}", c.AfterSystem, c.AfterTools))
	}
	if p.InterruptsAllowed {
		field("InterruptsAllowed", "true")
	}
	if a := missingFieldsLit(p.OnMissingFields); a != "" {
		field("OnMissingFields", a)
	}
	b.WriteString("}")
	return b.String()
}

// historyLit renders a history policy as a *history.Policy literal.
func historyLit(h *expr.HistoryExpr) string {
	if !h.Compresses() {
		return fmt.Sprintf("&history.Policy{KeepRecentTurns: %d}", h.KeepRecentTurns)
	}
	var parts []string
	for _, f := range []struct {
		name string
		n    int
	}{
		{"CompressAtTurns", h.CompressAtTurns}, {"CompressAtMaxInputTokens", h.CompressAtMaxInputTokens},
		{"KeepMaxTurns", h.KeepMaxTurns}, {"KeepMaxInputTokens", h.KeepMaxInputTokens},
	} {
		if f.n != 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", f.name, f.n))
		}
	}
	return "&history.Policy{Compression: &history.Compression{" + strings.Join(parts, ", ") + "}}"
}

// missingFieldsLit names the runtime constant of an OnMissingFields value
// ("" for the planner default).
func missingFieldsLit(a expr.MissingFieldsAction) string {
	switch a {
	case expr.MissingFieldsFinalize:
		return "runtime.MissingFieldsFinalize"
	case expr.MissingFieldsAwaitClarification:
		return "runtime.MissingFieldsAwaitClarification"
	case expr.MissingFieldsResume:
		return "runtime.MissingFieldsResume"
	}
	return ""
}

// durationLit renders d as a readable constant expression ("5 * time.Minute").
func durationLit(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "time.Hour"}, {time.Minute, "time.Minute"}, {time.Second, "time.Second"}, {time.Millisecond, "time.Millisecond"}} {
		if d%u.d == 0 {
			return fmt.Sprintf("%d * %s", d/u.d, u.name)
		}
	}
	return fmt.Sprintf("time.Duration(%d)", int64(d))
}

// agentFiles returns the files of an agent package: agent.go and client.go.
func agentFiles(data *agentData) []*goacodegen.File {
	imports := []*goacodegen.ImportSpec{
		{Path: "context"}, {Path: "errors"}, {Path: "fmt"}, {Path: "time"},
		{Path: "github.com/quiver-go/quiver/mcp/upstream"},
		{Path: "github.com/quiver-go/quiver/model"},
		{Path: "github.com/quiver-go/quiver/planner"},
		{Path: "github.com/quiver-go/quiver/runtime"},
		{Path: "github.com/quiver-go/quiver/runtime/history"},
		{Path: "github.com/quiver-go/quiver/toolcall"},
		{Path: "github.com/quiver-go/quiver/tools"},
	}
	for _, u := range data.Uses {
		spec := &goacodegen.ImportSpec{Path: u.Import}
		if u.Alias != u.Toolset.Package {
			spec.Name = u.Alias
		}
		imports = append(imports, spec)
		if u.AgentTools != nil {
			imports = append(imports, &goacodegen.ImportSpec{Path: u.AgentTools.Import, Name: u.AgentAlias})
		}
	}
	title := fmt.Sprintf("Agent %q of service %q", data.Expr.Name, data.Service)
	agent := &goacodegen.File{
		Path: path.Join(data.Dir, "agent.go"),
		SectionTemplates: []*goacodegen.SectionTemplate{
			goacodegen.Header(title+": definition and registration", data.Package, imports),
			{Name: "quiver-agent", Source: agentT, Data: data, FuncMap: funcs},
		},
	}
	client := &goacodegen.File{
		Path: path.Join(data.Dir, "client.go"),
		SectionTemplates: []*goacodegen.SectionTemplate{
			goacodegen.Header(title+": client", data.Package, []*goacodegen.ImportSpec{
				{Path: "context"}, {Path: "github.com/quiver-go/quiver/runtime"},
			}),
			{Name: "quiver-agent-client", Source: clientT, Data: data, FuncMap: funcs},
		},
	}
	return []*goacodegen.File{agent, client}
}
