{{ range .Types }}
{{ comment .Comment }}
type {{ .Name }} {{ .Def }}
{{ end }}