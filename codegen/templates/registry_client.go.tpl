// Name is the registry's name in the design: the name agents' registry
// sources use.
const Name = {{ printf "%q" .Expr.Name }}

// URL is the registry's endpoint.
const URL = {{ printf "%q" .Expr.URL }}

// APIVersion is the registry API's version segment.
const APIVersion = {{ printf "%q" .Expr.APIVersion }}

// Credential names the security scheme whose credential NewClient sends
// ({{ if .Scheme }}{{ .Kind }}{{ else }}none: the design requires no credential{{ end }}).
const Credential = {{ printf "%q" .Scheme }}
{{ if .Scheme }}
// NewClient returns a client of the registry that sends credential — the
// {{ printf "%q" .Scheme }} {{ .Kind }} the design's Security names — as a
// bearer token on every request.
{{- if .Options }}
//
// Its options are the design's {{ joinSettings .Settings }}, then opts,
// which override them.
func NewClient(credential string, opts ...registry.ClientOption) (*registry.Client, error) {
	settings := []registry.ClientOption{
		registry.WithAPIKey(credential),
{{- range .Options }}
		{{ . }},
{{- end }}
	}
	return registry.NewClient(URL, append(settings, opts...)...)
}
{{- else }}
func NewClient(credential string, opts ...registry.ClientOption) (*registry.Client, error) {
	return registry.NewClient(URL, append([]registry.ClientOption{registry.WithAPIKey(credential)}, opts...)...)
}
{{- end }}
{{- else }}
// NewClient returns a client of the registry. The design requires no
// credential; registry.WithAPIKey adds one.
{{- if .Options }}
//
// Its options are the design's {{ joinSettings .Settings }}, then opts,
// which override them.
func NewClient(opts ...registry.ClientOption) (*registry.Client, error) {
	settings := []registry.ClientOption{
{{- range .Options }}
		{{ . }},
{{- end }}
	}
	return registry.NewClient(URL, append(settings, opts...)...)
}
{{- else }}
func NewClient(opts ...registry.ClientOption) (*registry.Client, error) {
	return registry.NewClient(URL, opts...)
}
{{- end }}
{{- end }}
