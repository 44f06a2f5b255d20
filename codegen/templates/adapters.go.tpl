{{ $ts := .Toolset.Package }}
// {{ .Func }} returns the executor of toolset {{ printf "%q" .Toolset.Expr.Name }}: it runs
// each tool bound with BindTo or forwarded with Passthrough by calling its
// method on the given service, with no planner.
{{- if .Unbound }}
// It hands the other tools ({{ range $i, $t := .Unbound }}{{ if $i }}, {{ end }}{{ $t.Expr.Name }}{{ end }}) to unbound, which may be
// nil: they then fail with "tool_unavailable".
{{- end }}
// A method error becomes a tool failure carrying its message.
func {{ .Func }}({{ range .Services }}{{ .Param }} {{ .Pkg }}.Service, {{ end }}{{ if .Unbound }}unbound toolcall.Executor{{ end }}) toolcall.Executor {
	return &executor{ {{- range .Services }}{{ .Param }}: {{ .Param }}, {{ end }}{{ if .Unbound }}unbound: unbound, {{ end }}payloads: map[tools.Ident]tools.TypeSpec{
{{- range .Tools }}{{ if .MethodPayload }}
		{{ $ts }}.{{ .Tool.GoName }}: {{ $ts }}.{{ .Tool.GoName }}Spec().Payload,
{{- end }}{{ end }}
	}}
}

// executor runs the calls of toolset {{ printf "%q" .Toolset.Expr.Name }}.
type executor struct {
{{- range .Services }}
	// {{ .Param }} implements the methods of service {{ printf "%q" .Name }}.
	{{ .Param }} {{ .Pkg }}.Service
{{- end }}
{{- if .Unbound }}
	// unbound runs the tools without BindTo, or is nil.
	unbound toolcall.Executor
{{- end }}
	// payloads are the bound tools' model-facing payload contracts: a
	// payload is checked against its own before it is converted, so that a
	// caller that skipped the pipeline's check cannot make the conversion
	// read a required field that is not there.
	payloads map[tools.Ident]tools.TypeSpec
}

// Execute implements toolcall.Executor.
func (e *executor) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	switch call.Ident {
{{- range .Tools }}
	case {{ $ts }}.{{ .Tool.GoName }}:
		return e.{{ .Handler }}(ctx, call)
{{- end }}
{{- if .Unbound }}
	case {{ range $i, $t := .Unbound }}{{ if $i }}, {{ end }}{{ $ts }}.{{ $t.GoName }}{{ end }}:
		if e.unbound == nil {
			return failure(toolcall.KindUnavailable, fmt.Sprintf("%s is not bound to a service method and no executor runs it", call.Ident), toolcall.RecoveryReplan), nil
		}
		return e.unbound.Execute(ctx, call)
{{- end }}
	}
	return nil, fmt.Errorf("toolset %q has no tool %q", {{ printf "%q" .Toolset.Expr.Name }}, call.Ident)
}
{{ range .Tools }}
// {{ .Handler }} runs tool {{ .Tool.Spec.Name }}{{ if .Passthrough }} (Passthrough){{ end }} with method {{ .Method }} of service {{ printf "%q" .Service.Name }}.
func (e *executor) {{ .Handler }}(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
{{- if .MethodPayload }}
	if err := e.payloads[call.Ident].Validate(call.Payload); err != nil {
		return failure(toolcall.KindInvalidPayload, err.Error(), toolcall.RecoveryCorrectCall), nil
	}
	p := new({{ $ts }}.{{ .Tool.Payload }})
	if err := call.Decode(p); err != nil {
		return failure(toolcall.KindInvalidPayload, err.Error(), toolcall.RecoveryCorrectCall), nil
	}
	{{ .PayloadCode }}
{{- end }}
	{{ if .MethodResult }}mr, {{ end }}err := e.{{ .Service.Param }}.{{ .Method }}(ctx{{ if .MethodPayload }}, mp{{ end }})
	if err != nil {
		return failure(toolcall.KindToolError, fmt.Sprintf("{{ .Service.Name }}.{{ .Method }}: %v", err), toolcall.RecoveryReplan), nil
	}
{{- if .MethodResult }}
	if mr == nil {
		return failure(toolcall.KindToolError, "{{ .Service.Name }}.{{ .Method }} returned no result", toolcall.RecoveryReplan), nil
	}
{{- end }}
	out := &toolcall.Result{}
{{- if .ToolResult }}
	{{- if .ResultCode }}
	{{ .ResultCode }}
	{{- else }}
	r := &{{ $ts }}.{{ .Tool.Result }}{}
	{{- end }}
	if out.Result, err = {{ $ts }}.{{ .Tool.GoName }}Tool().Result.ToJSON(r); err != nil {
		return failure(toolcall.KindToolError, err.Error(), toolcall.RecoveryReplan), nil
	}
{{- end }}
{{- range .ServerData }}
	{{- if .Nillable }}
	if {{ .Field }} != nil {
		{{- if .Code }}
		{{ .Code }}
		{{- end }}
		if err := addServerData(out, {{ printf "%q" .Kind }}, {{ .Audience }}, {{ .Value }}); err != nil {
			return nil, err
		}
	}
	{{- else }}
	if err := addServerData(out, {{ printf "%q" .Kind }}, {{ .Audience }}, {{ .Value }}); err != nil {
		return nil, err
	}
	{{- end }}
{{- end }}
	return out, nil
}
{{ end }}
{{- range .Helpers }}
{{ printf "%s builds a value of type %s from a value of type %s." .Name .ResultTypeRef .ParamTypeRef | comment }}
func {{ .Name }}(v {{ .ParamTypeRef }}) {{ .ResultTypeRef }} {
	{{ .Code }}
	return res
}
{{ end }}
{{- range .Types }}
{{ comment .Comment }}
type {{ .Name }} {{ .Def }}
{{ end }}
{{- if .HasServerData }}
// addServerData appends v, encoded as JSON, to the result's server data.
func addServerData(out *toolcall.Result, kind string, audience tools.Audience, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("server data %q: %w", kind, err)
	}
	out.ServerData = append(out.ServerData, toolcall.ServerData{Kind: kind, Audience: audience, Data: data})
	return nil
}
{{ end }}
// failure returns a failed tool result.
func failure(kind toolcall.Kind, msg string, recovery toolcall.Recovery) *toolcall.Result {
	return &toolcall.Result{Failure: &toolcall.Failure{Code: kind, Message: msg, Recovery: recovery}}
}
