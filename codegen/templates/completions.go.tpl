{{ $svc := .Service.Name }}{{ range .Completions }}{{ $lower := lower .GoName }}
// {{ .TypeName }} is the type of {{ .GoName }}, completion
// {{ printf "%q" .Expr.Name }} of service {{ printf "%q" $svc }}, whose answer is a {{ .ResultName }}.
// Its methods, from the embedded *completion.Completion, ask a model for
// the answer and decode it once it has met the result's schema:
//   - Complete(ctx, client, req) makes one request and returns the value;
//   - StreamComplete(ctx, client, req) returns a *completion.Streamer,
//     whose Recv yields the answer's text as it arrives, for preview only,
//     and whose Value is the decoded answer, after a clean end of the
//     stream and validation;
//   - Definition() returns the completion's name, description and schema.
//
// A request offering tools, or setting StructuredOutput, is refused
// before any model request; an answer that breaks the schema is a
// *planner.OutputContractError, and the model is not asked again.
type {{ .TypeName }} struct {
	*completion.Completion[{{ .Result }}]
}

// {{ .GoName }} is completion {{ printf "%q" .Expr.Name }} of service {{ printf "%q" $svc }}{{ with .Expr.Description }}:
{{ comment . }}{{ else }}.{{ end }}
var {{ .GoName }} = {{ .TypeName }}{completion.New(completion.Definition{
	Name: {{ printf "%q" .Expr.Name }},
{{- with .Expr.Description }}
	Description: {{ printf "%q" . }},
{{- end }}
	Schema: json.RawMessage({{ $lower }}Schema),
}, {{ $lower }}Codec.FromJSON)}

// {{ $lower }}Schema is the JSON Schema of the answer of completion
// {{ printf "%q" .Expr.Name }}: every object in it is closed.
const {{ $lower }}Schema = {{ lit (printf "%s" .Schema) }}

// {{ $lower }}Codec validates answers of completion {{ printf "%q" .Expr.Name }}
// against its schema and decodes them; it is used only on a complete answer.
var {{ $lower }}Codec = tools.NewJSONCodec[{{ .Result }}](tools.MustTypeSpec({{ printf "%q" .ResultName }}, json.RawMessage({{ $lower }}Schema)))
{{- if .Example }}

// {{ $lower }}Example is the declared example of the result of
// completion {{ printf "%q" .Expr.Name }}, checked against its schema by goa gen.
const {{ $lower }}Example = {{ lit (printf "%s" .Example) }}

// Example returns the declared example of the completion's result,
// decoded: a fresh value on every call.
func ({{ .TypeName }}) Example() {{ .Result }} {
	v, err := {{ $lower }}Codec.FromJSON([]byte({{ $lower }}Example))
	if err != nil {
		panic(err) // checked against the schema by goa gen
	}
	return v
}
{{- end }}
{{ end }}
