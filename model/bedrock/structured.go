package bedrock

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/quiver-go/quiver/model"
)

// outputConfig returns the Converse "outputConfig" for so: nil (nothing
// sent) when so is nil, otherwise
//
//	{"textFormat": {"type": "json_schema",
//	                "structure": {"jsonSchema": {"name": …, "description": …, "schema": "<the schema as a JSON string>"}}}}
//
// (types.OutputConfig, bedrockruntime v1.63.13), which asks Bedrock to
// constrain the model's text answer to the schema. The schema is sent as
// declared: which JSON Schema features are enforced depends on the model,
// and Bedrock refuses (ValidationException, returned as an error) a model
// without structured output or a schema that model cannot represent, so
// nothing falls back to the prompt. The answer is validated against the
// declared schema after (package completion).
func outputConfig(so *model.StructuredOutput) (*types.OutputConfig, error) {
	if so == nil {
		return nil, nil
	}
	if err := so.Check(); err != nil {
		return nil, fmt.Errorf("bedrock: %w", err)
	}
	var schema bytes.Buffer
	if err := json.Compact(&schema, so.Schema); err != nil {
		return nil, fmt.Errorf("bedrock: structured output %q: %w", so.Name, err)
	}
	def := types.JsonSchemaDefinition{Name: aws.String(so.Name), Schema: aws.String(schema.String())}
	if so.Description != "" {
		def.Description = aws.String(so.Description)
	}
	return &types.OutputConfig{TextFormat: &types.OutputFormat{
		Type:      types.OutputFormatTypeJsonSchema,
		Structure: &types.OutputFormatStructureMemberJsonSchema{Value: def},
	}}, nil
}
