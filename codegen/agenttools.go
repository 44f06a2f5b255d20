package codegen

import (
	"fmt"
	"path"

	goacodegen "goa.design/goa/v3/codegen"

	"github.com/quiver-go/quiver/expr"
)

// agentToolsData is what the agenttools package of one agent export
// renders: the exported toolset registered as an agent toolset, whose
// calls run the exporting agent (runtime.ToolsetRegistration.Agent).
type agentToolsData struct {
	// Export is the agent's export.
	Export *expr.ExportExpr
	// Toolset is the exported toolset's package, whose Specs() the
	// registration holds.
	Toolset *toolsetData
	// Agent is the exporting agent's registered name ("<service>.<agent>").
	Agent string
	// AgentImport is the exporting agent's package import path; AgentGoName
	// its Go name ("Planner"), for the doc comments.
	AgentImport, AgentGoName string
	// Package is the Go package name (the exported toolset package's),
	// also the last directory of Dir.
	Package string
	// Dir is the package directory relative to the output directory:
	// gen/agents/<service>/<agent>/agenttools/<toolset>.
	Dir string
	// Import is the package's import path.
	Import string
}

// agentToolsAlias is the name an agenttools package imports its exported
// toolset package under: both have the toolset's package name.
const agentToolsAlias = "toolset"

// buildAgentTools computes the agenttools package of every agent export
// whose toolset has a generated package, in declaration order, and returns
// them with an index by export. A service's exports get none: only an
// agent runs as a tool.
func buildAgentTools(root *expr.RootExpr, pkgs *toolsetPackages) ([]*agentToolsData, map[*expr.ExportExpr]*agentToolsData, error) {
	var list []*agentToolsData
	byExport := map[*expr.ExportExpr]*agentToolsData{}
	for _, e := range root.Exports {
		a := e.Agent
		if a == nil || a.Service == nil || e.PassthroughOnly() {
			continue
		}
		ts := pkgs.byExpr[e.Exported()]
		if ts == nil {
			continue
		}
		data := &agentToolsData{
			Export:      e,
			Toolset:     ts,
			Agent:       a.Service.Name + "." + a.Name,
			AgentImport: path.Join(pkgs.genpkg, agentRel(a)),
			AgentGoName: goacodegen.Goify(a.Name, true),
			Package:     ts.Package,
		}
		rel := path.Join(agentRel(a), "agenttools", ts.Package)
		data.Dir = path.Join(goacodegen.Gendir, rel)
		data.Import = path.Join(pkgs.genpkg, rel)
		where := fmt.Sprintf("the agent toolset of %s", e.EvalName())
		if other, ok := pkgs.dirs[data.Dir]; ok {
			return nil, nil, fmt.Errorf("quiver codegen: %s and %s both generate package %q: rename one", other, where, data.Dir)
		}
		pkgs.dirs[data.Dir] = where
		list = append(list, data)
		byExport[e] = data
	}
	return list, byExport, nil
}

// agentToolsFile returns agenttools.go of an agenttools package.
func agentToolsFile(data *agentToolsData) *goacodegen.File {
	title := fmt.Sprintf("Toolset %q exported by agent %q: the agent run as the tool", data.Toolset.Expr.Name, data.Agent)
	return &goacodegen.File{
		Path: path.Join(data.Dir, "agenttools.go"),
		SectionTemplates: []*goacodegen.SectionTemplate{
			goacodegen.Header(title, data.Package, []*goacodegen.ImportSpec{
				{Path: "github.com/quiver-go/quiver/runtime"},
				{Path: data.Toolset.Import, Name: agentToolsAlias},
			}),
			{Name: "quiver-agenttools", Source: agentToolsT, Data: data, FuncMap: funcs},
		},
	}
}
