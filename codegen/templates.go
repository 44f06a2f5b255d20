package codegen

// typesT renders the payload and result types of a toolset package.
const typesT = `{{ range .Types }}
{{ comment .Comment }}
type {{ .Name }} {{ .Def }}
{{ end }}`

// identsT renders the tool idents and the toolset-wide functions.
const identsT = `// Tool idents of toolset {{ printf "%q" .Expr.Name }}.
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
`

// toolT renders one tool: its spec, descriptor and Decode function.
const toolT = `{{ $s := .Spec }}
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
`

// toolsetT renders ToolSchemas(), the tools as the declarations a provider
// publishes, and Toolset() and SchemaFingerprint, both derived from it, so
// the declarations are written once. SchemaFingerprint hashes a tool's
// declaration alone, leaving out the toolset-level annotations (toolset
// description, version and the tags every tool inherits), as tool search
// seed 000 prescribes: "Le helper généré SchemaFingerprint(name) décrit
// toujours l'enregistrement du fournisseur sans annotations facultatives au
// niveau du toolset", while contract.Fingerprint(Toolset()) covers them.
const toolsetT = `
// ToolSchemas returns fresh declarations of the toolset's tools, in
// declaration order, as a provider publishes them (contract.Compile accepts
// each): the consumer contract included — keywords, the tool's own tags,
// payload schemas with their injected fields and the injected field names,
// required labels, confirmation, bounds (paging), server data, meta and
// exposure. The toolset's tags are a toolset-level annotation: they are not
// repeated here but carried by Toolset(), whose tools inherit them when
// compiled with contract.CompileToolset.
func ToolSchemas() []contract.ToolDeclaration {
	return []contract.ToolDeclaration{
{{- range .Tools }}{{ $s := .Spec }}
		{
			Toolset: {{ printf "%q" .Expr.Toolset.Name }},
			Name: {{ printf "%q" .Expr.Name }},
			Title: {{ printf "%q" $s.Title }},
			Description: {{ printf "%q" $s.Description }},
		{{- if .Expr.Tags }}
			Tags: {{ strs .Expr.Tags }},
		{{- end }}
		{{- if .Keywords }}
			Keywords: {{ strs .Keywords }},
		{{- end }}
			InputSchema: {{ rawJSON .FullSchema }},
		{{- if not $s.Result.IsZero }}
			OutputSchema: {{ rawJSON $s.Result.Schema }},
		{{- end }}
		{{- with $s.Payload.Example }}
			InputExample: {{ rawJSON .Raw }},
		{{- end }}
		{{- with $s.Confirmation }}
			Confirmation: &tools.ConfirmationSpec{Title: {{ printf "%q" .Title }}, PromptTemplate: {{ printf "%q" .PromptTemplate }}, DeniedResultTemplate: {{ printf "%q" .DeniedResultTemplate }}},
		{{- end }}
		{{- with $s.Bounds }}
			Bounds: &tools.BoundsSpec{Cursor: {{ printf "%q" .Cursor }}, NextCursor: {{ printf "%q" .NextCursor }}, ContinueWith: {{ printf "%q" .ContinueWith }}},
		{{- end }}
		{{- if $s.ServerData }}
			ServerData: []contract.ServerDataDeclaration{
			{{- range $s.ServerData }}
				{Kind: {{ printf "%q" .Kind }}, Audience: {{ audience .Audience }}{{ if not .Schema.IsZero }}, Schema: {{ rawJSON .Schema.Schema }}{{ end }}},
			{{- end }}
			},
		{{- end }}
		{{- if $s.RequiredLabels }}
			RequiredLabels: {{ strs $s.RequiredLabels }},
		{{- end }}
		{{- if .Expr.Inject }}
			Inject: {{ strs .Expr.Inject }},
		{{- end }}
		{{- if $s.Meta }}
			Meta: map[string][]string{
			{{- range $k := keys $s.Meta }}
				{{ printf "%q" $k }}: {{ strs (index $s.Meta $k) }},
			{{- end }}
			},
		{{- end }}
		{{- if $s.Exposure }}
			Exposure: {{ exposure $s.Exposure }},
		{{- end }}
		},
{{- end }}
	}
}

// Toolset returns the toolset as the declaration a provider registers
// (contract.CompileToolset accepts it): its name, description and tags, and
// the tools of ToolSchemas(), whose tags are their own (the toolset's are
// inherited at compilation). contract.Fingerprint hashes all of it.
func Toolset() contract.ToolsetDeclaration {
	return contract.ToolsetDeclaration{
		Name: {{ printf "%q" .Expr.Name }},
	{{- if .Expr.Description }}
		Description: {{ printf "%q" .Expr.Description }},
	{{- end }}
	{{- if .Expr.Tags }}
		Tags: {{ strs .Expr.Tags }},
	{{- end }}
		Tools: ToolSchemas(),
	}
}

// SchemaFingerprint returns the schema fingerprint of the tool of that
// local name (the bare tool name, not its ident): contract.FingerprintTool
// of its ToolSchemas() declaration, the provider's registration of the
// tool. It leaves out the optional toolset-level annotations — the
// toolset's description and version, and the toolset's tags that every tool
// inherits — so that re-describing or re-tagging the toolset does not change
// the fingerprint of tools whose own contract is unchanged: it always
// describes the provider's registration without optional toolset-level
// annotations. contract.Fingerprint(Toolset()) covers those annotations
// too. An unknown name is an error naming the toolset's tools.
func SchemaFingerprint(name string) (string, error) {
	decls := ToolSchemas()
	names := make([]string, len(decls))
	for i, d := range decls {
		if d.Name == name {
			return contract.FingerprintTool(d)
		}
		names[i] = d.Name
	}
	return "", fmt.Errorf("toolset %q has no tool %q; its tools are %s", {{ printf "%q" .Expr.Name }}, name, strings.Join(names, ", "))
}
`
