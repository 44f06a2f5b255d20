package codegen

import (
	"fmt"
	"path"

	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
)

// mcpToolsets returns, for each MCP server whose methods are tools, the
// toolset those tools make: named after the server, each tool's arguments
// the method's payload and its result the method's result, bound to the
// method (BindTo), so the toolset package and its adapter executor are
// generated as for any bound toolset. The server's package serves them.
func mcpToolsets(root *expr.RootExpr) ([]*expr.ToolsetExpr, error) {
	var out []*expr.ToolsetExpr
	for _, m := range root.MCPServers {
		if !m.Declared || len(m.Tools) == 0 {
			continue
		}
		ts := &expr.ToolsetExpr{Name: m.Name, Description: fmt.Sprintf("The tools of MCP server %q of service %q.", m.Name, m.Service.Name)}
		for _, t := range m.Tools {
			meth := t.Method
			if meth.IsStreaming() {
				return nil, fmt.Errorf("quiver codegen: MCP tool %q: method %q streams; an MCP tool is one request and one result", t.Name, meth.Name)
			}
			if meth.Payload != nil && meth.Payload.Type != goaexpr.Empty && !goaexpr.IsObject(meth.Payload.Type) {
				return nil, fmt.Errorf("quiver codegen: MCP tool %q: method %q takes a %s; an MCP tool's arguments are an object: declare the payload with attributes", t.Name, meth.Name, meth.Payload.Type.Name())
			}
			tool := &expr.ToolExpr{Toolset: ts, Name: t.Name, Description: t.Description,
				Binding: &expr.BindingExpr{ServiceName: m.Service.Name, MethodName: meth.Name, Service: m.Service, Method: meth}}
			if meth.Payload != nil && meth.Payload.Type != goaexpr.Empty {
				tool.Args = meth.Payload
			}
			if meth.Result != nil && meth.Result.Type != goaexpr.Empty {
				tool.Return = meth.Result
			}
			tool.Finalize()
			ts.Tools = append(ts.Tools, tool)
		}
		out = append(out, ts)
	}
	return out, nil
}

// mcpToolsetParent is where the toolset of a service's MCP tools is
// generated: under the server's package.
func mcpToolsetParent(m *expr.MCPExpr) string {
	return path.Join(packageName(m.Service.Name), "mcpserver")
}
