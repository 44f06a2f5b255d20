package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/quiver-go/quiver/internal/jsonobj"
	"github.com/quiver-go/quiver/internal/strictschema"
	"github.com/quiver-go/quiver/model"
)

// structuredText returns the request's "text" parameter for so: the zero
// value (nothing sent) when so is nil, otherwise a Structured Outputs
// format,
//
//	{"type":"json_schema","name":…,"description":…,"schema":…,"strict":…}
//
// (responses.ResponseFormatTextJSONSchemaConfigParam's wire form). The
// schema is sent byte for byte as declared — never rewritten, so the
// contract the answer is validated against is the one the model was
// given, and its properties keep their order (the model writes them in
// that order). "strict" is true only when the schema already meets strict
// mode as it is (package strictschema states the subset); otherwise it is
// false: decoding is then guided by the schema without the API enforcing
// it, and the caller's validation (package completion) still decides.
// Normalizing the schema to force strict mode — making optional fields
// required and nullable, dropping keywords — would change the contract,
// so it is left to the schema's author.
//
// A schema whose root is not an object schema cannot be a format at all:
// it is refused, before anything is sent, with an error wrapping
// model.ErrStructuredOutputUnsupported that says why.
func structuredText(so *model.StructuredOutput) (responses.ResponseTextConfigParam, error) {
	if so == nil {
		return responses.ResponseTextConfigParam{}, nil
	}
	if err := so.Check(); err != nil {
		return responses.ResponseTextConfigParam{}, fmt.Errorf("openai: %w", err)
	}
	if err := strictschema.CheckRoot(so.Schema); err != nil {
		return responses.ResponseTextConfigParam{}, fmt.Errorf("openai: structured output %q: %w: %w", so.Name, err, model.ErrStructuredOutputUnsupported)
	}
	issues, err := strictschema.Check(so.Schema)
	if err != nil {
		return responses.ResponseTextConfigParam{}, fmt.Errorf("openai: structured output %q: %w", so.Name, err)
	}
	var schema bytes.Buffer
	if err := json.Compact(&schema, so.Schema); err != nil {
		return responses.ResponseTextConfigParam{}, fmt.Errorf("openai: structured output %q: %w", so.Name, err)
	}
	strict := json.RawMessage("false")
	if len(issues) == 0 {
		strict = json.RawMessage("true")
	}
	ms := []jsonobj.Member{
		{Key: "type", Value: json.RawMessage(`"json_schema"`)},
		{Key: "name", Value: jsonobj.String(so.Name)},
	}
	if so.Description != "" {
		ms = append(ms, jsonobj.Member{Key: "description", Value: jsonobj.String(so.Description)})
	}
	ms = append(ms,
		jsonobj.Member{Key: "schema", Value: schema.Bytes()},
		jsonobj.Member{Key: "strict", Value: strict},
	)
	return responses.ResponseTextConfigParam{
		Format: param.Override[responses.ResponseFormatTextConfigUnionParam](jsonobj.Encode(ms)),
	}, nil
}
