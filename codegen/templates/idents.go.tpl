// Tool idents of toolset {{ printf "%q" .Expr.Name }}.
const (
{{- range .Tools }}
	// {{ .GoName }} is the ident of tool {{ .Spec.Name }}.
	{{ .GoName }} tools.Ident = {{ printf "%q" .Spec.Name }}
{{- end }}
)

// RequiredLabels lists the run labels the toolset's tools need, sorted.
var RequiredLabels {{ if .RequiredLabels }}= {{ strs .RequiredLabels }}{{ else }}[]string{{ end }}

// Specs returns fresh copies of the specs of the toolset's tools, in
// declaration order.
func Specs() []tools.ToolSpec {
	return []tools.ToolSpec{
	{{- range .Tools }}
		{{ .GoName }}Spec(),
	{{- end }}
	}
}

// mustExample returns t with its declared root example; the example was
// validated at generation time.
func mustExample(t tools.TypeSpec, raw string) tools.TypeSpec {
	t, err := t.WithExample(json.RawMessage(raw))
	if err != nil {
		panic(err)
	}
	return t
}
