package expr

import (
	"fmt"
	"regexp"
	"strings"

	"goa.design/goa/v3/eval"
)

// ProviderKind says where a toolset's tools come from.
type ProviderKind int

const (
	// ProviderLocal is a toolset whose tools are declared in the design.
	ProviderLocal ProviderKind = iota
	// ProviderMCP is a toolset served by the MCP server of a Goa service
	// of the same design: Toolset(FromMCP(service, toolset)).
	ProviderMCP
	// ProviderExternalMCP is a toolset served by an MCP server outside the
	// design, its schemas declared inline:
	// Toolset(name, FromExternalMCP(server, toolset), func() { Tool(...) }).
	ProviderExternalMCP
	// ProviderRegistry is a toolset resolved from a registry at run time:
	// Toolset(FromRegistry(registry, toolset)).
	ProviderRegistry
)

// String returns the DSL function that declares the provider kind.
func (k ProviderKind) String() string {
	switch k {
	case ProviderMCP:
		return "FromMCP"
	case ProviderExternalMCP:
		return "FromExternalMCP"
	case ProviderRegistry:
		return "FromRegistry"
	}
	return "local"
}

// ProviderExpr is the provider option of a toolset declared with FromMCP,
// FromExternalMCP or FromRegistry.
type ProviderExpr struct {
	// Kind says which function declared the provider.
	Kind ProviderKind
	// Service is the Goa service declaring MCP (FromMCP) or the external
	// MCP server (FromExternalMCP).
	Service string
	// Toolset is the provider-side name: the MCP server name (FromMCP), the
	// external server's toolset (FromExternalMCP) or the registry toolset
	// (FromRegistry).
	Toolset string
	// Registry is the registry serving the toolset (FromRegistry).
	Registry *RegistryExpr
	// prepared is set once the MCP server's tools were added (FromMCP);
	// inline then holds the tools the toolset declared itself.
	prepared bool
	inline   []string
	// Location is where the provider option is called in the design.
	Location Location
}

// EvalName implements eval.Expression.
func (p *ProviderExpr) EvalName() string {
	if p.Kind == ProviderRegistry && p.Registry != nil {
		return fmt.Sprintf("FromRegistry(%q, %q)", p.Registry.Name, p.Toolset)
	}
	return fmt.Sprintf("%s(%q, %q)", p.Kind, p.Service, p.Toolset)
}

// Kind returns where the toolset's tools come from.
func (t *ToolsetExpr) Kind() ProviderKind {
	if t == nil || t.Provider == nil {
		return ProviderLocal
	}
	return t.Provider.Kind
}

// RegistryRef returns the registry a FromRegistry toolset refers to, or
// nil for any other toolset.
func (t *ToolsetExpr) RegistryRef() *RegistryExpr {
	if t.Kind() != ProviderRegistry {
		return nil
	}
	return t.Provider.Registry
}

// SetVersion lets Goa's Version pin the published version of a
// FromRegistry toolset.
func (t *ToolsetExpr) SetVersion(v string) { t.Version = v }

// semver matches a semantic version, with an optional leading "v".
var semver = regexp.MustCompile(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// providerSite returns the expression to report t's provider errors on:
// t when it has a DSL function, else t located where the provider option
// is called.
func (t *ToolsetExpr) providerSite() eval.Expression {
	if t.Provider == nil {
		return t
	}
	return t.Provider.Location.Of(t)
}

// validateProvider enforces the provider rules: a FromMCP toolset names a
// service of the design that declares MCP and declares no tools of its
// own; a FromExternalMCP toolset declares its tools inline; a registry
// reference declares no tools, tags or publications and pins only a
// semantic version; Version belongs to registry references.
func (t *ToolsetExpr) validateProvider(verr *eval.ValidationErrors) {
	at := t.providerSite()
	if t.Version != "" && t.Kind() != ProviderRegistry {
		verr.Add(at, "Version: only a FromRegistry toolset pins a version; toolset %q is %s", t.Name, describeKind(t.Kind()))
	}
	if t.Provider == nil {
		return
	}
	p := t.Provider
	if strings.TrimSpace(p.Toolset) == "" {
		verr.Add(at, "%s: the provider's toolset name is empty", p.Kind)
	}
	switch p.Kind {
	case ProviderMCP:
		t.validateFromMCP(verr)
	case ProviderExternalMCP:
		if strings.TrimSpace(p.Service) == "" {
			verr.Add(at, "FromExternalMCP: the server name is empty")
		}
		if len(t.Tools) == 0 {
			verr.Add(at, "FromExternalMCP: toolset %q declares no tools: the schemas of external MCP server %q do not come from this design, declare each tool inline with Tool(name, description, func() { Args(...); Return(...) })", t.Name, p.Service)
		}
	case ProviderRegistry:
		t.validateRegistryRef(verr)
	}
}

// validateFromMCP checks that the named service declares the named MCP
// server and that the toolset adds no tools to it.
func (t *ToolsetExpr) validateFromMCP(verr *eval.ValidationErrors) {
	at := t.providerSite()
	p := t.Provider
	srv := Root.MCPServerOf(p.Service)
	switch {
	case srv == nil && !serviceExists(p.Service):
		verr.Add(at, "FromMCP: the design has no service %q: FromMCP names a Goa service of this design that declares MCP(...); use FromExternalMCP for a server outside the design", p.Service)
		return
	case srv == nil || !srv.Declared:
		verr.Add(at, "FromMCP: service %q does not declare MCP(name, version): FromMCP needs a service of this design that declares MCP", p.Service)
		return
	case srv.Name != p.Toolset:
		verr.Add(at, "FromMCP: service %q declares MCP server %q, not %q", p.Service, srv.Name, p.Toolset)
	}
	inline := t.ToolNames()
	if p.prepared {
		inline = p.inline
	}
	for _, name := range inline {
		verr.Add(at, "Tool: %q is declared on toolset %q, whose tools are the MCP tools of service %q: mark a Method of the service with Tool(name, description) instead", name, t.Name, p.Service)
	}
}

// validateRegistryRef rejects what a consumer cannot add to a registry
// reference: the provider owns its definitions and tags.
func (t *ToolsetExpr) validateRegistryRef(verr *eval.ValidationErrors) {
	at := t.providerSite()
	p := t.Provider
	if p.Registry == nil {
		verr.Add(at, "FromRegistry: the registry is nil (was it declared with Registry at the top level?)")
		return
	}
	if len(t.Tools) > 0 {
		verr.Add(at, "Tool: toolset %q is a reference to registry %q, whose provider owns the definitions: it cannot declare tools inline (%s)", t.Name, p.Registry.Name, strings.Join(t.ToolNames(), ", "))
	}
	if len(t.Tags) > 0 {
		verr.Add(at, "Tags: toolset %q is a reference to registry %q: tags belong to the provider; filter them with the consumer's run policy", t.Name, p.Registry.Name)
	}
	for _, e := range Root.Exports {
		if e.Toolset == t {
			verr.Add(e.Location.Of(e), "Export: toolset %q is a reference to registry %q: only its provider exports and publishes it; export a local toolset", t.Name, p.Registry.Name)
		}
	}
	if t.Version != "" && !semver.MatchString(t.Version) {
		verr.Add(at, "Version: %q is not a semantic version such as \"1.2.3\"", t.Version)
	}
}

// describeKind says in words where a toolset's tools come from.
func describeKind(k ProviderKind) string {
	if k == ProviderLocal {
		return "declared locally"
	}
	return "declared with " + k.String()
}

// pendingCodegen is the last expression the root walks: once a design has
// validated, its Finalize records in the root a warning for each
// declaration whose code generation is not implemented yet (the
// publications of MCP-backed toolsets), so that goa gen says what it
// leaves out instead of failing. Passthroughs, registries, registry
// references, agents' registry sources, MCP servers, MCP-backed toolsets
// (FromMCP, FromExternalMCP) and the agents using them, the publications
// of local toolsets exported by services and completions generate code
// (package codegen).
type pendingCodegen struct {
	root *RootExpr
}

// EvalName implements eval.Expression.
func (*pendingCodegen) EvalName() string { return "pending code generation" }

// Finalize fills the root's Warnings, in declaration order.
func (p *pendingCodegen) Finalize() {
	r := p.root
	r.Warnings = nil
	for _, p := range r.Publications {
		if ts := p.Export.Exported(); ts != nil && (ts.Kind() == ProviderMCP || ts.Kind() == ProviderExternalMCP) {
			r.AddWarning("code generation for the publication of MCP toolsets is not implemented yet; nothing is generated to publish toolset %q (%s) to registry %q", ts.Name, ts.Provider.EvalName(), p.Registry.Name)
		}
	}
}

// AddWarning records a warning that code generation prints.
func (r *RootExpr) AddWarning(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}
