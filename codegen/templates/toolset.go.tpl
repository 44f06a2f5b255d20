
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
