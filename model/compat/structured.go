package compat

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/quiver-go/quiver/internal/strictschema"
	"github.com/quiver-go/quiver/model"
)

// WithStructuredOutput declares that the server constrains its output to
// a JSON Schema given as Chat Completions'
//
//	"response_format": {"type": "json_schema",
//	                    "json_schema": {"name": …, "description": …, "schema": …, "strict": …}}
//
// (vLLM and llama-server do; many servers accept the field and ignore it,
// so support is the caller's declaration, never assumed). Without it a
// request with model.Request.StructuredOutput is refused with
// model.ErrStructuredOutputUnsupported before anything is sent: a server
// that ignores response_format would leave the answer to the prompt.
//
// The schema is sent as declared, in its key order. "strict" is true only
// when the schema already meets OpenAI's strict mode (package
// strictschema), false otherwise; the answer is validated after either way
// (package completion).
func WithStructuredOutput() Option { return func(c *config) { c.structuredOutput = true } }

// responseFormat sets p's response_format for so; a nil so leaves p as it
// is. It refuses so when the server was not declared to support it
// (WithStructuredOutput) or when so is invalid.
func (c *config) responseFormat(so *model.StructuredOutput, p *openai.ChatCompletionNewParams) error {
	if so == nil {
		return nil
	}
	if !c.structuredOutput {
		return fmt.Errorf("compat: structured output %q: the server is not declared to constrain output to a JSON Schema: build the client with compat.WithStructuredOutput() if it honours response_format json_schema (vLLM, llama-server), or use an adapter whose provider does: %w", so.Name, model.ErrStructuredOutputUnsupported)
	}
	if err := so.Check(); err != nil {
		return fmt.Errorf("compat: %w", err)
	}
	issues, err := strictschema.Check(so.Schema)
	if err != nil {
		return fmt.Errorf("compat: structured output %q: %w", so.Name, err)
	}
	var schema bytes.Buffer
	if err := json.Compact(&schema, so.Schema); err != nil {
		return fmt.Errorf("compat: structured output %q: %w", so.Name, err)
	}
	js := shared.ResponseFormatJSONSchemaJSONSchemaParam{
		Name:   so.Name,
		Schema: json.RawMessage(schema.Bytes()),
		Strict: openai.Bool(len(issues) == 0),
	}
	if so.Description != "" {
		js.Description = openai.String(so.Description)
	}
	p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}}
	return nil
}
