package dsl

import (
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
)

// MCPOption configures the MCP server declared by MCP.
type MCPOption func(*expr.MCPExpr)

// MCP exposes the current Goa service as a Model Context Protocol server
// named name at version version: its methods marked with Tool become MCP
// tools, those marked with Resource MCP resources, and its StaticPrompt
// declarations MCP prompts.
//
//	Service("calculator", func() {
//		MCP("calc", "1.0.0", ProtocolVersion("2025-06-18"))
//		Method("add", func() {
//			Payload(func() { Attribute("a", Int); Attribute("b", Int) })
//			Result(Int)
//			Tool("add", "Add two numbers")
//		})
//	})
//
// goa gen generates the package gen/<service>/mcpserver for it: the
// server's Name, Version and ProtocolVersion, Prompts() (its static
// prompts), Resources(svc) (its Resource methods, read through the
// service's implementation) and, when methods are marked with Tool,
// Toolset(svc), the methods as a toolset with its executor — the pieces of
// an mcp.Config (package codegen documents the files). A toolset consuming
// it (FromMCP) shares that package when named after the server, and
// registers on a runtime with an upstream client (package mcp/upstream).
func MCP(name, version string, opts ...MCPOption) {
	svc, ok := eval.Current().(*goaexpr.ServiceExpr)
	if !ok {
		eval.ReportError("MCP: %q must be declared in a Service", name)
		return
	}
	m := expr.Root.MCPServer(svc)
	if m.Declared {
		eval.ReportError("MCP: service %q declares MCP twice (%q, then %q)", svc.Name, m.Name, name)
		return
	}
	m.Declared, m.Name, m.Version = true, name, version
	for _, opt := range opts {
		if opt != nil {
			opt(m)
		}
	}
}

// ProtocolVersion sets the MCP protocol revision the server speaks, a date
// such as "2025-06-18"; without it the runtime's default applies. It is an
// option of MCP.
func ProtocolVersion(version string) MCPOption {
	return func(m *expr.MCPExpr) { m.ProtocolVersion = version }
}

// Resource exposes the current method of an MCP service as an MCP resource
// named name, located by uri and of media type mimeType:
// Resource("readme", "file:///docs/README.md", "text/markdown").
func Resource(name, uri, mimeType string) {
	m, ok := eval.Current().(*goaexpr.MethodExpr)
	if !ok {
		eval.ReportError("Resource: %q must be declared in a Method of a service that declares MCP", name)
		return
	}
	srv, ok := mcpServerOf(m, "Resource", name)
	if !ok {
		return
	}
	srv.Resources = append(srv.Resources, &expr.MCPResourceExpr{Method: m, Name: name, URI: uri, MimeType: mimeType})
}

// StaticPrompt adds a prompt template to the MCP server of the current
// service, its messages given as role and content pairs:
// StaticPrompt("greeting", "Friendly greeting", "system", "You are a
// helpful assistant", "user", "Hello!").
func StaticPrompt(name, description string, messages ...string) {
	svc, ok := eval.Current().(*goaexpr.ServiceExpr)
	if !ok {
		eval.ReportError("StaticPrompt: %q must be declared in a Service that declares MCP", name)
		return
	}
	if len(messages)%2 != 0 {
		eval.ReportError("StaticPrompt: %q: messages come in role and content pairs (\"user\", \"Hello!\"); got %d strings", name, len(messages))
		return
	}
	p := &expr.StaticPromptExpr{Name: name, Description: description}
	for i := 0; i < len(messages); i += 2 {
		p.Messages = append(p.Messages, expr.PromptMessage{Role: messages[i], Content: messages[i+1]})
	}
	srv := expr.Root.MCPServer(svc)
	srv.Prompts = append(srv.Prompts, p)
}

// FromMCP is the provider option of a toolset served by the MCP server of
// a Goa service of this design: Toolset(FromMCP("assistant",
// "assistant-mcp")), where service "assistant" declares
// MCP("assistant-mcp", ...). The toolset's tools are the service's methods
// marked with Tool, with their payloads and results as schemas; the
// toolset is named after the server unless Toolset gives a name.
func FromMCP(service, toolset string) *expr.ProviderExpr {
	return &expr.ProviderExpr{Kind: expr.ProviderMCP, Service: service, Toolset: toolset, Location: expr.DesignLocation()}
}

// FromExternalMCP is the provider option of a toolset served by an MCP
// server outside the design. Its schemas do not come from the design, so
// the toolset declares its tools inline:
//
//	var RemoteSearch = Toolset("remote-search", FromExternalMCP("remote", "search"), func() {
//		Tool("web_search", "Search the web", func() {
//			Args(func() { Attribute("query", String) })
//		})
//	})
func FromExternalMCP(service, toolset string) *expr.ProviderExpr {
	return &expr.ProviderExpr{Kind: expr.ProviderExternalMCP, Service: service, Toolset: toolset, Location: expr.DesignLocation()}
}

// methodTool marks method m of an MCP service as the MCP tool name:
// Tool(name, description) inside a Method.
func methodTool(m *goaexpr.MethodExpr, name, desc string, fn func()) {
	if fn != nil {
		eval.ReportError("Tool: %q: in a Method, Tool takes a name and a description only; the method's Payload and Result are the tool's schemas", name)
		return
	}
	srv, ok := mcpServerOf(m, "Tool", name)
	if !ok {
		return
	}
	if prev := srv.ToolOf(m); prev != nil {
		eval.ReportError("Tool: method %q is already MCP tool %q", m.Name, prev.Name)
		return
	}
	srv.Tools = append(srv.Tools, &expr.MCPToolExpr{Method: m, Name: name, Description: desc})
}

// mcpServerOf returns the MCP server of m's service, reporting an error
// naming fname when the service declares none. Service DSLs run before
// method DSLs, so MCP has run by now wherever the service declares it.
func mcpServerOf(m *goaexpr.MethodExpr, fname, name string) (*expr.MCPExpr, bool) {
	if m.Service != nil {
		if srv := expr.Root.MCPServerOf(m.Service.Name); srv != nil && srv.Declared {
			return srv, true
		}
	}
	svc := ""
	if m.Service != nil {
		svc = m.Service.Name
	}
	eval.ReportError("%s: %q: service %q does not declare MCP(name, version): declare it in the service to expose methods over MCP", fname, name, svc)
	return nil, false
}

// toolsetArgs reads Toolset's arguments: a name, a provider option and a
// DSL function, in that order, each optional.
func toolsetArgs(args []any) (*expr.ToolsetExpr, bool) {
	ts := &expr.ToolsetExpr{}
	if len(args) == 0 {
		eval.ReportError("Toolset: give a name, a provider option (FromMCP, FromExternalMCP, FromRegistry) or both")
		return nil, false
	}
	for i, a := range args {
		switch v := a.(type) {
		case string:
			if i > 0 {
				eval.ReportError("Toolset: the name %q must come first", v)
				return nil, false
			}
			ts.Name = v
		case *expr.ProviderExpr:
			if v == nil {
				return nil, false // the provider option reported why
			}
			if ts.Provider != nil || ts.DSLFunc != nil {
				eval.ReportError("Toolset: give one provider option, before the DSL function")
				return nil, false
			}
			p := *v // a copy: a provider variable may serve several toolsets
			ts.Provider = &p
		case func():
			if ts.DSLFunc != nil {
				eval.ReportError("Toolset: %q takes one DSL function", ts.Name)
				return nil, false
			}
			ts.DSLFunc = v
		default:
			eval.ReportError("Toolset: want a name, a provider option (FromMCP, FromExternalMCP, FromRegistry) and a DSL function, got %T", a)
			return nil, false
		}
	}
	p := ts.Provider
	if p == nil {
		return ts, true
	}
	if ts.Name == "" {
		ts.Name = p.Toolset
	}
	if p.Kind == expr.ProviderExternalMCP && ts.DSLFunc == nil {
		eval.ReportError("FromExternalMCP: toolset %q declares no tools: the schemas of external MCP server %q do not come from this design, declare each tool inline with Tool(name, description, func() { Args(...); Return(...) })", ts.Name, p.Service)
		return nil, false
	}
	return ts, true
}
