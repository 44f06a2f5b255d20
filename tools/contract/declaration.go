package contract

import (
	"encoding/json"
	"time"

	"github.com/quiver-go/quiver/tools"
)

// ToolDeclaration declares one tool at run time, the way a provider publishes
// it to a registry. All metadata is explicit: [Compile] infers nothing from
// field names. JSON names are snake_case so declarations can be stored and
// published as they are.
type ToolDeclaration struct {
	// Toolset is the toolset's name; it may contain dots.
	Toolset string `json:"toolset"`
	// Name is the bare tool name; it may not contain dots.
	Name string `json:"name"`
	// Title is the human title; required.
	Title string `json:"title"`
	// Description tells the model what the tool does.
	Description string `json:"description,omitempty"`
	// Tags are the tool's own policy tags (a toolset's tags are inherited
	// by [CompileToolset]).
	Tags []string `json:"tags,omitempty"`
	// Keywords are extra search terms.
	Keywords []string `json:"keywords,omitempty"`
	// InputSchema is the payload's JSON Schema, an object schema. Injected
	// fields are declared in it and removed from what the model sees. Its
	// root is closed unless it says otherwise: without
	// "additionalProperties" (or "unevaluatedProperties"), [Compile] refuses
	// properties the schema does not declare; say
	// "additionalProperties": true to accept them.
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is the result's JSON Schema, or empty for none.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// InputExample is the payload's declared root example (as the model
	// sends it, so without injected fields), or empty. Examples inside
	// [ToolDeclaration.InputSchema] are not promoted.
	InputExample json.RawMessage `json:"input_example,omitempty"`
	// Confirmation requires out-of-band approval before execution.
	Confirmation *tools.ConfirmationSpec `json:"confirmation,omitempty"`
	// Bounds declares a bounded (paged) result.
	Bounds *tools.BoundsSpec `json:"bounds,omitempty"`
	// ServerData declares server-only outputs.
	ServerData []ServerDataDeclaration `json:"server_data,omitempty"`
	// RequiredLabels lists run labels the tool needs. The keys of
	// label-backed injected fields are added by [Compile].
	RequiredLabels []string `json:"required_labels,omitempty"`
	// Inject lists payload properties the runtime fills; each is classified
	// by [tools.ClassifyInjected] and must be a declared string property.
	Inject []string `json:"inject,omitempty"`
	// Meta holds inert, named annotations.
	Meta map[string][]string `json:"meta,omitempty"`
	// Exposure is the MCP exposure tier, or "".
	Exposure tools.Exposure `json:"exposure,omitempty"`
}

// ServerDataDeclaration declares one server-only output of a runtime tool.
type ServerDataDeclaration struct {
	// Kind identifies the data, e.g. "metrics.time_series".
	Kind string `json:"kind"`
	// Audience routes the data; empty means [tools.AudienceTimeline].
	Audience tools.Audience `json:"audience,omitempty"`
	// Schema is the data's JSON Schema, or empty for none.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// ToolsetDeclaration declares a toolset at run time: a dynamic registry
// entry or a generated Toolset() rendered as data.
type ToolsetDeclaration struct {
	// Name is the toolset's name.
	Name string `json:"name"`
	// Description describes the toolset.
	Description string `json:"description,omitempty"`
	// Tags are inherited by every tool of the set.
	Tags []string `json:"tags,omitempty"`
	// Version is the published version, or "".
	Version string `json:"version,omitempty"`
	// Tools are the toolset's tools. A tool's Toolset may be left empty; it
	// then belongs to this set.
	Tools []ToolDeclaration `json:"tools"`
	// RegisteredAt is when the toolset was registered; fingerprints exclude
	// it.
	RegisteredAt time.Time `json:"registered_at,omitzero"`
}
