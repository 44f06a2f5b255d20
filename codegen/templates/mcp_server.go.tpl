// Name and Version identify the MCP server (mcp.Config.Name, Version);
// ProtocolVersion is the protocol revision it pins, "" for none.
const (
	Name            = {{ printf "%q" .Expr.Name }}
	Version         = {{ printf "%q" .Expr.Version }}
	ProtocolVersion = {{ printf "%q" .Expr.ProtocolVersion }}
)

// Prompts returns the server's static prompts (mcp.Config.Prompts), fresh.
func Prompts() []qmcp.Prompt {
	return []qmcp.Prompt{
{{- range .Expr.Prompts }}
		{Name: {{ printf "%q" .Name }}, Description: {{ printf "%q" .Description }}, Messages: []qmcp.PromptMessage{
{{- range .Messages }}
			{Role: {{ printf "%q" .Role }}, Text: {{ printf "%q" .Content }}},
{{- end }}
		}},
{{- end }}
	}
}
{{ if .Resources }}
// Resources returns the server's resources (mcp.Config.Resources), each
// read by calling its method on svc.
func Resources(svc {{ .ServicePkg }}.Service) []qmcp.Resource {
	return []qmcp.Resource{
{{- range .Resources }}
		{URI: {{ printf "%q" .Expr.URI }}, Name: {{ printf "%q" .Expr.Name }}, MIMEType: {{ printf "%q" .Expr.MimeType }}, Read: func(ctx context.Context) (qmcp.ResourceContent, error) {
			res, err := svc.{{ .Method }}(ctx)
			if err != nil {
				return qmcp.ResourceContent{}, err
			}
			return qmcp.ResourceContent{ {{- if .Binary }}Blob{{ else }}Text{{ end }}: res}, nil
		}},
{{- end }}
	}
}
{{- end }}
{{ if .Tools }}
// Toolset returns the server's method tools as a toolset — the generated
// specs of package {{ .ToolsPkg }}, each run by calling its method on svc —
// for a runtime (RegisterToolset) and, as its Toolset(), for
// mcp.Toolsets. The tools declare no exposure: serve them with
// mcp.Config.Undeclared set to the tier they need.
func Toolset(svc {{ .ServicePkg }}.Service) runtime.ToolsetRegistration {
	return runtime.ToolsetRegistration{Name: {{ printf "%q" .Tools.Expr.Name }}, Specs: {{ .ToolsPkg }}.Specs(), Executor: adapters.{{ .Executor }}(svc)}
}
{{- end }}
