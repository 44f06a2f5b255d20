package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/tools"
)

// ErrStructuredOutputUnsupported is wrapped by the error of a client asked
// for a [Request.StructuredOutput] it cannot have its provider enforce: the
// provider has no structured output, the client was not told the server
// supports it, or the declared schema uses a construct the provider's
// constrained decoding cannot represent. The wrapping error says which,
// and what to change. No client falls back to asking for JSON in the
// prompt: a request that wraps it was never sent.
var ErrStructuredOutputUnsupported = errors.New("model: structured output unsupported")

// MaxStructuredOutputName is the longest [StructuredOutput.Name], in bytes.
const MaxStructuredOutputName = 64

// StructuredOutput asks the model for a final answer that is one JSON
// document meeting Schema, instead of tool calls or free text. The answer
// arrives as the response's text ([Response.Text]). Adapters ask their
// provider to constrain decoding to the schema (normalizing it to what the
// provider accepts, never weakening what is checked) and refuse, wrapping
// [ErrStructuredOutputUnsupported], what the provider cannot represent.
// The schema stays the contract: callers validate the answer against it
// (package completion does).
type StructuredOutput struct {
	// Name identifies the output format to the provider; it must satisfy
	// [ValidStructuredOutputName].
	Name string `json:"name"`
	// Description tells the model what the answer is.
	Description string `json:"description,omitempty"`
	// Schema is the JSON Schema (a JSON object) the answer must meet.
	Schema json.RawMessage `json:"schema"`
}

// ValidStructuredOutputName reports whether name can name a
// [StructuredOutput]: 1 to [MaxStructuredOutputName] ASCII letters,
// digits, '_' and '-', starting with a letter or a digit.
func ValidStructuredOutputName(name string) bool {
	if len(name) == 0 || len(name) > MaxStructuredOutputName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Check reports whether s can be sent: its name satisfies
// [ValidStructuredOutputName] and its schema is a JSON object that
// compiles as a JSON Schema (draft 2020-12 unless it says otherwise),
// with no reference outside itself. The error names the field at fault
// and how to fix it.
func (s *StructuredOutput) Check() error {
	if s == nil {
		return errors.New("model: structured output: nil: set Name and Schema, or leave Request.StructuredOutput nil for a free-text answer")
	}
	if !ValidStructuredOutputName(s.Name) {
		return fmt.Errorf("model: structured output name %q: use 1 to %d ASCII letters, digits, '_' or '-', starting with a letter or digit", s.Name, MaxStructuredOutputName)
	}
	schema := bytes.TrimSpace(s.Schema)
	if len(schema) == 0 {
		return fmt.Errorf("model: structured output %q: the schema is missing: set Schema to the JSON Schema object the answer must meet ({} accepts any JSON value)", s.Name)
	}
	if schema[0] != '{' {
		return fmt.Errorf("model: structured output %q: the schema must be a JSON Schema object such as {\"type\":\"object\",...}, not %s", s.Name, describeJSONStart(schema))
	}
	if _, err := tools.NewTypeSpec("", schema); err != nil {
		return fmt.Errorf("model: structured output %q: %w", s.Name, err)
	}
	return nil
}

// Clone returns a deep copy of s (nil for nil).
func (s *StructuredOutput) Clone() *StructuredOutput {
	if s == nil {
		return nil
	}
	c := *s
	c.Schema = slices.Clone(s.Schema)
	return &c
}

// describeJSONStart names the kind of JSON value raw (not empty) starts
// with, for an error message.
func describeJSONStart(raw []byte) string {
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
			return "a number"
		}
		return "malformed JSON"
	}
}
