package codegen

import (
	"fmt"
	"path"

	goacodegen "goa.design/goa/v3/codegen"
	"goa.design/goa/v3/codegen/service"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
)

// mcpServerData is what the MCP package of a service renders: the
// server's identity, its static prompts and the resources its methods
// read.
type mcpServerData struct {
	Expr *expr.MCPExpr
	// ServicePkg and ServiceImport name Goa's package of the service
	// (gen/<service>): Resources takes its Service interface.
	ServicePkg, ServiceImport string
	Resources                 []*mcpResourceData
	// Tools is the package of the server's method tools (nil without
	// any); ToolsPkg its import name, Executor its adapter constructor.
	Tools              *toolsetData
	ToolsPkg, Executor string
}

// mcpResourceData is one resource: the method reading it and whether its
// content is bytes (Bytes result) or text (String result).
type mcpResourceData struct {
	Expr   *expr.MCPResourceExpr
	Method string
	Binary bool
}

// mcpFiles returns, for each service declaring MCP(...), the package
// gen/<service>/mcpserver: the server's name and version, Prompts() and
// Resources(svc) and, when methods are tools, Toolset(svc): their toolset
// (generated under the package, its tools bound to the methods) with the
// executor calling them. Goa's JSON-RPC transport for the service is Goa's
// and is not mounted by the mcp package.
func mcpFiles(genpkg string, roots []eval.Root, root *expr.RootExpr, pkgs *toolsetPackages) ([]*goacodegen.File, error) {
	dirs := pkgs.dirs
	var goaRoot *goaexpr.RootExpr
	for _, r := range roots {
		if r, ok := r.(*goaexpr.RootExpr); ok {
			goaRoot = r
		}
	}
	var files []*goacodegen.File
	for _, m := range root.MCPServers {
		if !m.Declared {
			continue
		}
		if goaRoot == nil {
			return nil, fmt.Errorf("quiver codegen: MCP server %q has no Goa root", m.Name)
		}
		sd := service.NewServicesData(goaRoot).Get(m.Service.Name)
		if sd == nil {
			return nil, fmt.Errorf("quiver codegen: MCP server %q: Goa has no data for service %q", m.Name, m.Service.Name)
		}
		data := &mcpServerData{Expr: m, ServicePkg: sd.PkgName, ServiceImport: path.Join(genpkg, sd.PathName)}
		if ts := pkgs.mcp[m]; ts != nil {
			data.Tools, data.ToolsPkg = ts, ts.Package+"tools"
			data.Executor = "New" + goacodegen.Goify(ts.Expr.Name, true) + "Executor"
		}
		for _, r := range m.Resources {
			md := sd.Method(r.Method.Name)
			if md == nil {
				return nil, fmt.Errorf("quiver codegen: resource %q: Goa has no data for method %q", r.Name, r.Method.Name)
			}
			if r.Method.Payload != nil && r.Method.Payload.Type != goaexpr.Empty {
				return nil, fmt.Errorf("quiver codegen: resource %q: method %q takes a payload; a resource is read without one: drop the payload", r.Name, r.Method.Name)
			}
			rd := &mcpResourceData{Expr: r, Method: md.VarName}
			switch r.Method.Result.Type {
			case goaexpr.String:
			case goaexpr.Bytes:
				rd.Binary = true
			default:
				return nil, fmt.Errorf("quiver codegen: resource %q: method %q returns %s; a resource method returns String (text) or Bytes", r.Name, r.Method.Name, r.Method.Result.Type.Name())
			}
			data.Resources = append(data.Resources, rd)
		}
		dir := path.Join(goacodegen.Gendir, sd.PathName, "mcpserver")
		where := fmt.Sprintf("MCP server %q", m.Name)
		if other, ok := dirs[dir]; ok {
			return nil, fmt.Errorf("quiver codegen: %s and %s both generate package %q: rename one", other, where, dir)
		}
		dirs[dir] = where
		imports := []*goacodegen.ImportSpec{{Name: "qmcp", Path: "github.com/quiver-go/quiver/mcp"}}
		if len(data.Resources) > 0 {
			imports = append(imports, &goacodegen.ImportSpec{Path: "context"})
		}
		if len(data.Resources) > 0 || data.Tools != nil {
			imports = append(imports, &goacodegen.ImportSpec{Name: data.ServicePkg, Path: data.ServiceImport})
		}
		if data.Tools != nil {
			imports = append(imports,
				&goacodegen.ImportSpec{Path: "github.com/quiver-go/quiver/runtime"},
				&goacodegen.ImportSpec{Name: data.ToolsPkg, Path: data.Tools.Import},
				&goacodegen.ImportSpec{Path: path.Join(data.Tools.Import, "adapters")})
		}
		files = append(files, &goacodegen.File{
			Path: path.Join(dir, "mcp.go"),
			SectionTemplates: []*goacodegen.SectionTemplate{
				goacodegen.Header(fmt.Sprintf("MCP server %q of service %q", m.Name, m.Service.Name), "mcpserver", imports),
				{Name: "quiver-mcp-server", Source: mcpServerT, Data: data, FuncMap: funcs},
			},
		})
	}
	return files, nil
}
