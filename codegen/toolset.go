package codegen

import (
	"encoding/json"
	"fmt"
	"strings"

	goacodegen "goa.design/goa/v3/codegen"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/expr"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// toolsetData is what the templates of one toolset package render.
type toolsetData struct {
	// Expr is the toolset.
	Expr *expr.ToolsetExpr
	// Package is the Go package name, also the last directory of Dir.
	Package string
	// Dir is the package directory relative to the output directory
	// (gen/toolsets/<toolset> for a top-level toolset).
	Dir string
	// Import is the package's import path.
	Import string
	// Tools are the toolset's tools in declaration order.
	Tools []*toolData
	// Types are the Go types of the payloads and results.
	Types []typeDef
	// RequiredLabels are the run labels the toolset needs.
	RequiredLabels []string
	// Publications are the registries a service publishes the toolset to,
	// in declaration order: publish.go renders their helpers.
	Publications []*publicationData
	// MCP is set when the toolset's tools are served by an MCP server
	// (FromMCP, FromExternalMCP): mcp.go renders the registration that
	// binds the specs to an upstream client.
	MCP *mcpClientData
	// typeScope is the name scope of the package's types: the BindTo
	// adapters name the toolset's user types with it, as types.go does.
	typeScope *goacodegen.NameScope
	// unions is true when the types declare a union, whose methods import
	// encoding/json and fmt.
	unions bool
	// Adapters is the package's BindTo and Passthrough adapters, set by
	// adapterFile when some tools call service methods (nil otherwise).
	Adapters *adapterData
}

// mcpClientData names the MCP server an MCP-backed toolset consumes, as
// the design declares it.
type mcpClientData struct {
	// Kind is ProviderMCP or ProviderExternalMCP.
	Kind expr.ProviderKind
	// Server is the Goa service (FromMCP) or the external server
	// (FromExternalMCP); Toolset the server's toolset (the MCP server's
	// name for FromMCP).
	Server, Toolset string
}

// mcpClientNames are the names mcp.go declares in an MCP-backed toolset's
// package (and in an MCP server's toolset package, which FromMCP toolsets
// of the same name share).
var mcpClientNames = []string{"MCPServer", "MCPToolset", "DeclaredToolset", "Register"}

// toolData is one tool of a toolset package: its Go names and the spec
// computed at generation time.
type toolData struct {
	// Expr is the tool.
	Expr *expr.ToolExpr
	// GoName is the tool's exported Go name ("StartExport").
	GoName string
	// Payload and Result are the Go type names.
	Payload, Result string
	// Spec is the tool's contract, computed and validated at generation
	// time; the templates render it as a literal.
	Spec tools.ToolSpec
	// FullSchema is the payload schema with its injected fields.
	FullSchema json.RawMessage
	// Keywords are the design's search keywords.
	Keywords []string
}

// packageName returns the Go package name of a toolset.
func packageName(toolset string) string {
	return strings.ToLower(goacodegen.Goify(toolset, false))
}

// buildToolset computes the data of a toolset's package; pubs are the
// publications of the toolset by services. mcp reserves the names of
// mcp.go (an MCP-backed toolset, or an MCP server's method tools).
func buildToolset(api *goaexpr.APIExpr, ts *expr.ToolsetExpr, pubs []*expr.PublicationExpr, mcp bool) (*toolsetData, error) {
	data := &toolsetData{Expr: ts, Package: packageName(ts.Name), RequiredLabels: ts.RequiredLabels()}
	types := newTypeGen()
	for _, name := range []string{"RequiredLabels", "Specs", "Toolset", "ToolSchemas", "SchemaFingerprint", "mustExample"} {
		types.unique(name)
	}
	if mcp {
		for _, name := range mcpClientNames {
			types.unique(name)
		}
	}
	var err error
	if data.Publications, err = buildPublications(ts, pubs); err != nil {
		return nil, err
	}
	for _, pub := range data.Publications {
		types.unique(pub.Func)
		types.unique(pub.RegistrationFunc)
	}
	for _, t := range ts.Tools {
		td := &toolData{Expr: t, GoName: types.unique(goacodegen.Goify(t.Name, true)), Keywords: t.Keywords}
		td.Payload = types.unique(td.GoName + "Payload")
		td.Result = types.unique(td.GoName + "Result")
		types.unique(td.GoName + "Spec")
		types.unique(td.GoName + "Tool")
		types.unique("Decode" + td.GoName)
		types.declare(td.Payload, fmt.Sprintf("%s is the payload of tool %s.", td.Payload, t.Ident()), t.Args)
		types.declare(td.Result, fmt.Sprintf("%s is the result of tool %s.", td.Result, t.Ident()), t.Return)
		if err := td.buildSpec(api); err != nil {
			return nil, fmt.Errorf("quiver codegen: tool %q of toolset %q: %w", t.Name, ts.Name, err)
		}
		data.Tools = append(data.Tools, td)
	}
	data.Types = types.defs
	data.typeScope = types.scope
	data.unions = types.unions
	return data, nil
}

// buildSpec computes the tool's spec as the generated code returns it, and
// validates it.
func (td *toolData) buildSpec(api *goaexpr.APIExpr) error {
	t := td.Expr
	spec := tools.ToolSpec{
		Name:               t.Ident(),
		Title:              t.Title,
		Description:        t.Description,
		Tags:               tools.InheritTags(t.Toolset.Tags, t.Tags),
		TerminalRun:        t.TerminalRun,
		Bookkeeping:        t.Bookkeeping,
		CallHintTemplate:   t.CallHintTemplate.Source(),
		ResultHintTemplate: t.ResultHintTemplate.Source(),
		ResultReminder:     t.ResultReminder,
		RequiredLabels:     t.RequiredLabels(),
		Exposure:           t.Exposure,
	}
	if len(t.Meta) > 0 {
		spec.Meta = make(map[string][]string, len(t.Meta))
		for k, v := range t.Meta {
			spec.Meta[k] = append([]string(nil), v...)
		}
	}
	if t.Bounds != nil {
		spec.Bounds = t.Bounds.Spec()
	}
	if t.Confirmation != nil {
		spec.Confirmation = t.Confirmation.Spec()
	}
	ps, err := payloadSchemas(api, t.Args, t.Inject, t.OpenArgs)
	if err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	td.FullSchema = ps.Full
	if spec.Payload, err = tools.NewTypeSpec(td.Payload, ps.ModelFacing); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	if ps.Example != nil {
		if spec.Payload, err = spec.Payload.WithExample(ps.Example); err != nil {
			return fmt.Errorf("payload: %w", err)
		}
	}
	for _, f := range t.InjectedFields() {
		if f.Schema, err = tools.NewTypeSpec("", ps.Injected[f.Name]); err != nil {
			return fmt.Errorf("injected field %q: %w", f.Name, err)
		}
		spec.Inject = append(spec.Inject, f)
	}
	result, err := typeSchema(api, t.Return)
	if err != nil {
		return fmt.Errorf("result: %w", err)
	}
	if result != nil {
		if spec.Result, err = tools.NewTypeSpec(td.Result, result); err != nil {
			return fmt.Errorf("result: %w", err)
		}
	}
	for _, sd := range t.ServerData {
		d := tools.ServerDataSpec{Kind: sd.Kind, Audience: sd.Audience, FromMethodResultField: sd.FromMethodResultField}
		raw, err := typeSchema(api, sd.Schema)
		if err != nil {
			return fmt.Errorf("server data %q: %w", sd.Kind, err)
		}
		if raw != nil {
			if d.Schema, err = tools.NewTypeSpec("", raw); err != nil {
				return fmt.Errorf("server data %q: %w", sd.Kind, err)
			}
		}
		spec.ServerData = append(spec.ServerData, d)
	}
	spec.Search = search.NewDocument(spec.SearchSource(t.Keywords...))
	if err := spec.Validate(); err != nil {
		return err
	}
	td.Spec = spec
	return nil
}
