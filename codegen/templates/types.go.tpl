{{ range .Types }}
{{ comment .Comment }}
type {{ .Name }} {{ .Def }}
{{- with .Methods }}
{{ . }}
{{- end }}
{{ end }}