{{ $ts := . }}{{ range .Publications }}
// {{ .Func }} serves toolset {{ printf "%q" $ts.Expr.Name }} to registry {{ printf "%q" .Registry }} through
// client, as service {{ printf "%q" .Service }} exports it with PublishTo: it registers
// {{ .RegistrationFunc }}(revision) — the full ToolSchemas() declaration of
// Toolset(), with its schema fingerprint — keeps the lease, runs with exec
// each call the registry routes here, and drains when ctx ends
// (registry.Serve, whose result it returns).
//
// client must reach registry {{ printf "%q" .Registry }}: NewClient of package
// {{ .ClientImport }} builds one.
// revision is issued by the deployment; a changed contract needs a new
// one. exec is the same toolcall.Executor that serves the toolset in
// process (a toolcall.Executor): it receives each call's payload as the
// registry validated it against the published schema, injected fields
// filled in; call.Decode and this package's Decode functions read it.
//
// Only a service's export is published: an agent's export runs the agent
// as the tool (agent-as-tool, in a child workflow), which a registry cannot
// carry, so it stays compiled into its consumers.
func {{ .Func }}(ctx context.Context, client *registry.Client, revision string, exec toolcall.Executor) error {
	return registry.Serve(ctx, client, {{ .RegistrationFunc }}(revision), exec)
}

// {{ .RegistrationFunc }} returns the registration {{ .Func }} serves:
// Toolset() and revision.
{{- if .Description }}
// The export's description replaces the toolset's.
{{- end }}
{{- if .Tags }}
// The export's tags follow the toolset's.
{{- end }}
// To tune the provider, set its Provider, MaxInFlight, DrainTimeout or
// Logger and pass it to registry.Serve.
func {{ .RegistrationFunc }}(revision string) registry.Registration {
{{- if or .Description .Tags }}
	decl := Toolset()
{{- if .Description }}
	decl.Description = {{ printf "%q" .Description }}
{{- end }}
{{- if .Tags }}
	decl.Tags = {{ strs .Tags }}
{{- end }}
	return registry.Registration{Toolset: decl, Revision: revision}
{{- else }}
	return registry.Registration{Toolset: Toolset(), Revision: revision}
{{- end }}
}
{{ end }}