{{- $kind := "FromExternalMCP" }}{{ if eq .MCP.Kind.String "FromMCP" }}{{ $kind = "FromMCP" }}{{ end -}}
// MCPServer and MCPToolset name where the toolset's tools are served, as
// the design declares them ({{ $kind }}({{ printf "%q" .MCP.Server }}, {{ printf "%q" .MCP.Toolset }})):
{{- if eq $kind "FromMCP" }}
// the Goa service of this design declaring the MCP server, and the
// server's name. Its method tools are this package's tools.
{{- else }}
// the external MCP server and its toolset. The schemas are the design's:
// the server must list each tool with the same input schema.
{{- end }}
// The transport that reaches the server is given at registration, never
// in the design.
const (
	MCPServer  = {{ printf "%q" .MCP.Server }}
	MCPToolset = {{ printf "%q" .MCP.Toolset }}
)

// DeclaredToolset binds the toolset's generated specs (Specs()) to the MCP
// server c is connected to (upstream.Connect): the server must list every
// tool with the declared input schema after normalization, else the
// toolset is refused with an *upstream.DriftError reporting each tool that
// differs, and nothing is called. The returned toolset's executor is c.
func DeclaredToolset(ctx context.Context, c *upstream.Client) (*upstream.Toolset, error) {
	if c == nil {
		return nil, errors.New("{{ .Package }}: DeclaredToolset: the upstream client is nil")
	}
	return c.DeclaredToolset(ctx, {{ printf "%q" .Expr.Name }}, Specs())
}

// Register binds the toolset to c (DeclaredToolset: schema drift is
// refused there) and registers it on rt under {{ printf "%q" .Expr.Name }}, its calls
// executed by c. It lists the server's tools once: it reaches the network.
// A toolset registered already on rt fails with runtime.ErrToolsetRegistered.
func Register(ctx context.Context, rt *runtime.Runtime, c *upstream.Client) error {
	if rt == nil {
		return errors.New("{{ .Package }}: Register: runtime is nil")
	}
	ts, err := DeclaredToolset(ctx, c)
	if err != nil {
		return fmt.Errorf("{{ .Package }}: register toolset %q: %w", {{ printf "%q" .Expr.Name }}, err)
	}
	return rt.RegisterToolset(runtime.ToolsetRegistration{Name: ts.Name, Specs: ts.Specs, Executor: ts.Executor})
}
