package model

import (
	"encoding/json"
	"slices"

	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

// ModelClass names a kind of model an agent asks for when it does not pin a
// model id; each runtime maps classes to clients.
type ModelClass string

// The model classes.
const (
	ModelClassDefault       ModelClass = "default"
	ModelClassSmall         ModelClass = "small"
	ModelClassHighReasoning ModelClass = "high-reasoning"
)

// Request is one model invocation.
type Request struct {
	// Model is a provider model id; empty uses [Request.Class].
	Model string `json:"model,omitempty"`
	// Class selects a model by class when [Request.Model] is empty.
	Class ModelClass `json:"class,omitempty"`
	// System is the system prompt, sent before [Request.Messages].
	System string `json:"system,omitempty"`
	// Messages is the conversation so far.
	Messages []Message `json:"messages"`
	// Tools are the definitions the model may call (wire names).
	Tools []ToolDefinition `json:"tools,omitempty"`
	// ToolChoice constrains tool use; zero means auto.
	ToolChoice ToolChoice `json:"tool_choice,omitzero"`
	// MaxTokens caps the output tokens of the invocation, search rounds
	// included; 0 leaves the provider default (adapters that need a cap
	// reject 0).
	MaxTokens int `json:"max_tokens,omitempty"`
	// Cache places prompt-cache checkpoints.
	Cache CacheCheckpoints `json:"cache,omitzero"`
	// Search says how deferred tools are discovered.
	Search SearchSettings `json:"search,omitzero"`
	// Discovery is what the conversation has discovered and the current
	// turn's searches have used, as the runtime's catalog knows it. Nil
	// (an adapter called directly) means: derive it from [Request.Messages].
	Discovery *DiscoveryState `json:"discovery,omitempty"`
	// StructuredOutput, when set, asks for a final answer that is one JSON
	// document meeting its schema, as the response's text (see
	// [StructuredOutput]). A client that cannot have its provider enforce
	// it refuses the request with [ErrStructuredOutputUnsupported].
	StructuredOutput *StructuredOutput `json:"structured_output,omitempty"`
}

// DiscoveryState returns r.Discovery, or the state r's messages record
// when r carries none.
func (r *Request) DiscoveryState() DiscoveryState {
	if r.Discovery != nil {
		d := *r.Discovery
		d.Tools = slices.Clone(d.Tools)
		return d
	}
	return DiscoveryStateOf(r.Messages)
}

// ToolChoiceMode is how the model may use tools.
type ToolChoiceMode string

// The tool choice modes.
const (
	ToolChoiceAuto     ToolChoiceMode = ""
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required"
	// ToolChoiceTool forces the tool named by ToolChoice.Name.
	ToolChoiceTool ToolChoiceMode = "tool"
)

// ToolChoice constrains tool use.
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode,omitempty"`
	// Name is the forced tool's wire name with [ToolChoiceTool].
	Name string `json:"name,omitempty"`
}

// CacheCheckpoints places prompt-cache checkpoints for providers that
// support them. An adapter that cannot place one leaves it out of the
// provider request and lists it in [Response.IgnoredCheckpoints]; it never
// fails the request for it.
type CacheCheckpoints struct {
	AfterSystem bool `json:"after_system,omitempty"`
	AfterTools  bool `json:"after_tools,omitempty"`
}

// SearchMode says who searches deferred tools.
type SearchMode string

// The search modes.
const (
	// SearchNative uses the provider's own mechanism (OpenAI client-executed
	// tool_search, Anthropic defer_loading with hosted search); a client
	// without one refuses it with ErrToolSearchUnsupported (SearchCapable).
	SearchNative SearchMode = ""
	// SearchPortable adds a search_tools function that our code answers:
	// the client must be wrapped with portable.Wrap (model/compat wraps
	// itself), or it refuses the mode with ErrToolSearchUnsupported.
	SearchPortable SearchMode = "portable"
)

// DefaultSearchToolName is the portable search tool's wire name.
const DefaultSearchToolName = "search_tools"

// DefaultSearchCap is how many searches our code answers per turn.
const DefaultSearchCap = 3

// SearchSettings configure discovery of deferred tools.
type SearchSettings struct {
	Mode SearchMode `json:"mode,omitempty"`
	// ToolName is the portable search tool's name ([DefaultSearchToolName]
	// when empty).
	ToolName string `json:"tool_name,omitempty"`
	// Cap is the per-turn search budget ([DefaultSearchCap] when 0).
	Cap int `json:"cap,omitempty"`
	// CallTool (portable mode only) keeps every request's tools array
	// the same for the whole run: found tools never join it; their
	// definitions come back in the search answer and the model calls them
	// through the [CallToolName] function, which the adapter turns into
	// ordinary calls of those tools. A provider's prompt cache then survives
	// every discovery; models call natively listed tools more reliably.
	CallTool bool `json:"call_tool,omitempty"`
}

// CallToolName is the wire name of the function a model calls found tools
// through when [SearchSettings.CallTool] is set (and of the MCP server's
// tool of the same use).
const CallToolName = "call_tool"

// ToolDefinition is one tool as advertised to a model.
type ToolDefinition struct {
	// Name is the wire name.
	Name string `json:"name"`
	// Ident is the tool the definition stands for. Adapters never send it;
	// they record it in discovery metadata.
	Ident tools.Ident `json:"ident,omitempty"`
	// Title is the human title.
	Title string `json:"title,omitempty"`
	// Description tells the model what the tool does.
	Description string `json:"description"`
	// InputSchema is the payload's JSON Schema as the model sees it.
	InputSchema json.RawMessage `json:"input_schema"`
	// Deferred tools are loaded by search, not advertised up front.
	Deferred bool `json:"deferred,omitempty"`
	// Search is the tool's search document (required when
	// [ToolDefinition.Deferred]).
	Search *search.Document `json:"search,omitempty"`
	// Examples are declared root payload examples (raw JSON).
	Examples []json.RawMessage `json:"examples,omitempty"`
}

// Clone returns a deep copy of d.
func (d ToolDefinition) Clone() ToolDefinition {
	c := d
	c.InputSchema = slices.Clone(d.InputSchema)
	if d.Search != nil {
		s := d.Search.Clone()
		c.Search = &s
	}
	if d.Examples != nil {
		c.Examples = make([]json.RawMessage, len(d.Examples))
		for i, e := range d.Examples {
			c.Examples[i] = slices.Clone(e)
		}
	}
	return c
}
