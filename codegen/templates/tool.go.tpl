{{ $s := .Spec }}
// {{ lower .GoName }}Spec is the spec of tool {{ $s.Name }}; {{ .GoName }}Spec hands
// out copies. Its schemas compile once, when the package is initialized.
var {{ lower .GoName }}Spec = tools.ToolSpec{
	Name: {{ .GoName }},
	Title: {{ printf "%q" $s.Title }},
	Description: {{ printf "%q" $s.Description }},
{{- if $s.Tags }}
	Tags: {{ strs $s.Tags }},
{{- end }}
{{- if $s.Meta }}
	Meta: map[string][]string{
	{{- range $k := keys $s.Meta }}
		{{ printf "%q" $k }}: {{ strs (index $s.Meta $k) }},
	{{- end }}
	},
{{- end }}
	Payload: {{ typeSpec $s.Payload }},
{{- if not $s.Result.IsZero }}
	Result: {{ typeSpec $s.Result }},
{{- end }}
{{- if $s.ServerData }}
	ServerData: []tools.ServerDataSpec{
	{{- range $s.ServerData }}
		{Kind: {{ printf "%q" .Kind }}, Audience: {{ audience .Audience }}{{ if not .Schema.IsZero }}, Schema: {{ typeSpec .Schema }}{{ end }}{{ if .FromMethodResultField }}, FromMethodResultField: {{ printf "%q" .FromMethodResultField }}{{ end }}},
	{{- end }}
	},
{{- end }}
{{- with $s.Bounds }}
	Bounds: &tools.BoundsSpec{Cursor: {{ printf "%q" .Cursor }}, NextCursor: {{ printf "%q" .NextCursor }}, ContinueWith: {{ printf "%q" .ContinueWith }}},
{{- end }}
{{- with $s.Confirmation }}
	Confirmation: &tools.ConfirmationSpec{Title: {{ printf "%q" .Title }}, PromptTemplate: {{ printf "%q" .PromptTemplate }}, DeniedResultTemplate: {{ printf "%q" .DeniedResultTemplate }}},
{{- end }}
{{- if $s.CallHintTemplate }}
	CallHintTemplate: {{ printf "%q" $s.CallHintTemplate }},
{{- end }}
{{- if $s.ResultHintTemplate }}
	ResultHintTemplate: {{ printf "%q" $s.ResultHintTemplate }},
{{- end }}
{{- if $s.ResultReminder }}
	ResultReminder: {{ printf "%q" $s.ResultReminder }},
{{- end }}
{{- if $s.TerminalRun }}
	TerminalRun: true,
{{- end }}
{{- if $s.Bookkeeping }}
	Bookkeeping: true,
{{- end }}
{{- if $s.Inject }}
	Inject: []tools.InjectedField{
	{{- range $s.Inject }}
		{Name: {{ printf "%q" .Name }}, Source: {{ injectSource .Source }}{{ if .Meta }}, Meta: {{ metaField .Meta }}{{ end }}, Schema: {{ typeSpec .Schema }}},
	{{- end }}
	},
{{- end }}
{{- if $s.RequiredLabels }}
	RequiredLabels: {{ strs $s.RequiredLabels }},
{{- end }}
	Search: {{ $s.Search.GoString }},
{{- if $s.Exposure }}
	Exposure: {{ exposure $s.Exposure }},
{{- end }}
}

// {{ .GoName }}Spec returns a fresh copy of the spec of tool {{ $s.Name }}.
func {{ .GoName }}Spec() tools.ToolSpec { return {{ lower .GoName }}Spec.Clone() }

// {{ .GoName }}Tool returns a fresh typed descriptor of tool {{ $s.Name }}: its
// spec with validating codecs for {{ .Payload }} and {{ .Result }}.
func {{ .GoName }}Tool() tools.TypedTool[*{{ .Payload }}, *{{ .Result }}] {
	spec := {{ .GoName }}Spec()
	return tools.TypedTool[*{{ .Payload }}, *{{ .Result }}]{
		Spec:    spec,
		Payload: tools.NewJSONCodec[*{{ .Payload }}](spec.Payload),
		Result:  tools.NewJSONCodec[*{{ .Result }}](spec.Result),
	}
}

// Decode{{ .GoName }} reads a call's payload for tool {{ $s.Name }}: it validates
// payload against the model-facing schema, fills the injected fields from
// meta and labels, and decodes the result (tools.Decode).
func Decode{{ .GoName }}(payload json.RawMessage, meta tools.CallMeta, labels map[string]string) (*{{ .Payload }}, error) {
	return tools.Decode[*{{ .Payload }}]({{ lower .GoName }}Spec, payload, meta, labels)
}
