package tokencount

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/tiktoken-go/tokenizer"

	"github.com/quiver-go/quiver/model"
)

// The framing OpenAI's chat format adds to a conversation, as in the OpenAI
// Cookbook's num_tokens_from_messages for the o200k_base models: every
// message is wrapped as <|start|>role<|message|>content<|end|>, three
// special tokens plus the role's name (one token for each of system, user,
// assistant and tool), and the reply is primed with <|start|>assistant
// <|message|>, three tokens more.
const (
	// MessageOverhead is the tokens each message costs besides its content:
	// three framing tokens and one for the role.
	MessageOverhead = 4
	// ReplyPriming is the tokens added once to any non-empty conversation
	// for the start of the model's reply.
	ReplyPriming = 3
)

// emptySchema stands in for a tool definition without an input schema, as
// the catalog and the adapters do.
const emptySchema = `{"type":"object"}`

// Counter counts o200k_base tokens of conversations and requests. It
// implements model.TokenCounter. A Counter holds one compiled codec and is
// safe for concurrent use; counts are deterministic.
//
// The count is that of the content as OpenAI's chat format frames it (see
// MessageOverhead and ReplyPriming): exact for plain text conversations on
// o200k_base models, a faithful estimate for tool calls and results, whose
// rendering each provider chooses, and for tool definitions (CountTools).
// Message metadata (Message.Meta) and call ids are not counted.
type Counter struct {
	codec tokenizer.Codec
}

// NewCounter returns a Counter for the o200k_base vocabulary, which is
// compiled into the binary: counting never touches the network.
func NewCounter() (*Counter, error) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("tokencount: %s: %w", Encoding, err)
	}
	return &Counter{codec: codec}, nil
}

// CountText returns the o200k_base tokens of s.
func (c *Counter) CountText(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := c.codec.Count(s)
	if err != nil {
		return 0, fmt.Errorf("tokencount: %w", err)
	}
	return n, nil
}

// CountTokens returns the input tokens of a conversation: the system prompt
// as a first message when it is not empty, then msgs, each costing
// MessageOverhead plus its content (see CountContent), plus ReplyPriming
// once. An empty system prompt with no messages counts 0.
func (c *Counter) CountTokens(ctx context.Context, system string, msgs []model.Message) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("tokencount: %w", err)
	}
	if system == "" && len(msgs) == 0 {
		return 0, nil
	}
	total := ReplyPriming
	if system != "" {
		n, err := c.CountText(system)
		if err != nil {
			return 0, err
		}
		total += MessageOverhead + n
	}
	for i, m := range msgs {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("tokencount: %w", err)
		}
		n, err := c.countMessage(m)
		if err != nil {
			return 0, fmt.Errorf("tokencount: message %d: %w", i, err)
		}
		total += MessageOverhead + n
	}
	return total, nil
}

// CountContent returns the content tokens of msgs without any framing: the
// text parts, each tool call's name and payload, each tool result's
// content. It measures what a model wrote, e.g. a response's output tokens.
func (c *Counter) CountContent(msgs []model.Message) (int, error) {
	total := 0
	for i, m := range msgs {
		n, err := c.countMessage(m)
		if err != nil {
			return 0, fmt.Errorf("tokencount: message %d: %w", i, err)
		}
		total += n
	}
	return total, nil
}

// countMessage returns the content tokens of one message, part by part.
func (c *Counter) countMessage(m model.Message) (int, error) {
	total := 0
	for _, p := range m.Parts {
		var texts []string
		switch p.Kind {
		case model.PartText:
			texts = []string{p.Text}
		case model.PartToolCall:
			if p.ToolCall != nil {
				texts = []string{p.ToolCall.Name, string(p.ToolCall.Payload)}
			}
		case model.PartToolResult:
			if p.ToolResult != nil {
				texts = []string{string(p.ToolResult.Content)}
			}
		}
		for _, s := range texts {
			n, err := c.CountText(s)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}

// CountTools returns the content tokens of the definitions the model sees
// before any search: the wire name, the description and the input schema
// (as written; {"type":"object"} when empty) of each definition that is not
// deferred, without framing. Deferred definitions and any search tool are
// left out: how a provider advertises them belongs to its adapter. The
// figure is an estimate that belongs to no provider; for the exact cost of
// a provider's tools array, see package advertised. An input schema that
// is not valid JSON is an error. No definitions count 0.
func (c *Counter) CountTools(defs []model.ToolDefinition) (int, error) {
	total := 0
	for _, d := range defs {
		if d.Deferred {
			continue
		}
		schema := d.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = json.RawMessage(emptySchema)
		}
		if !json.Valid(schema) {
			return 0, fmt.Errorf("tokencount: tool %q: input schema is not valid JSON", d.Name)
		}
		for _, s := range []string{d.Name, d.Description, string(schema)} {
			n, err := c.CountText(s)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}

// CountRequest returns the input tokens of req: its conversation (system
// prompt and messages, see CountTokens) plus its tool definitions (see
// CountTools).
func (c *Counter) CountRequest(ctx context.Context, req *model.Request) (int, error) {
	if req == nil {
		return 0, fmt.Errorf("tokencount: nil request")
	}
	conv, err := c.CountTokens(ctx, req.System, req.Messages)
	if err != nil {
		return 0, err
	}
	tools, err := c.CountTools(req.Tools)
	if err != nil {
		return 0, err
	}
	return conv + tools, nil
}

// Compile-time check that Counter is a model.TokenCounter.
var _ model.TokenCounter = (*Counter)(nil)
