package bedrock

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/quiver-go/quiver/model"
)

// message is the assistant message a ConverseStream builds: its content
// blocks by index, in the order they started, the stop reason and the
// usage.
type message struct {
	blocks  map[int32]*block
	order   []int32
	stopped bool
	stop    types.StopReason
	usage   *types.TokenUsage
}

// block is one content block: text, or a tool use and its input text.
type block struct {
	text    strings.Builder
	tool    bool
	id      string
	name    string
	input   strings.Builder
	stopped bool
}

// add takes one event and returns the chunks it makes.
//
// Wire shape (bedrockruntime types.ConverseStreamOutput members):
//
//	messageStart      {"role":"assistant"}
//	contentBlockStart {"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"…","name":"…"}}}
//	contentBlockDelta {"contentBlockIndex":0,"delta":{"text":"…"}}
//	contentBlockDelta {"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"ta"}}}
//	contentBlockStop  {"contentBlockIndex":1}
//	messageStop       {"stopReason":"tool_use"}
//	metadata          {"usage":{"inputTokens":N,"outputTokens":N,…},"metrics":{…}}
//
// Text blocks have no start event. Deltas of other kinds (reasoning,
// citations) are not kept, as Complete keeps only text and tool use.
func (m *message) add(ev types.ConverseStreamOutput) ([]model.Chunk, error) {
	switch ev := ev.(type) {
	case *types.ConverseStreamOutputMemberContentBlockStart:
		tu, ok := ev.Value.Start.(*types.ContentBlockStartMemberToolUse)
		if !ok {
			return nil, nil
		}
		b, err := m.block(ev.Value.ContentBlockIndex)
		if err != nil {
			return nil, err
		}
		b.tool, b.id, b.name = true, aws.ToString(tu.Value.ToolUseId), aws.ToString(tu.Value.Name)
		if b.id == "" || b.name == "" {
			return nil, fmt.Errorf("bedrock: the model started a tool call without an id or a name (id %q, name %q)", b.id, b.name)
		}
		return []model.Chunk{{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: b.id, Name: b.name}}}, nil
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		b, err := m.block(ev.Value.ContentBlockIndex)
		if err != nil {
			return nil, err
		}
		switch d := ev.Value.Delta.(type) {
		case *types.ContentBlockDeltaMemberText:
			b.text.WriteString(d.Value)
			if d.Value == "" {
				return nil, nil
			}
			return []model.Chunk{{Kind: model.ChunkText, Text: d.Value}}, nil
		case *types.ContentBlockDeltaMemberToolUse:
			if !b.tool {
				return nil, fmt.Errorf("%w: tool input for content block %d, which started no tool call", ErrBrokenStream, aws.ToInt32(ev.Value.ContentBlockIndex))
			}
			piece := aws.ToString(d.Value.Input)
			b.input.WriteString(piece)
			return []model.Chunk{{Kind: model.ChunkToolCallDelta, ToolCallDelta: &model.ToolCallDelta{ID: b.id, Name: b.name, Arguments: piece}}}, nil
		}
	case *types.ConverseStreamOutputMemberContentBlockStop:
		b, err := m.block(ev.Value.ContentBlockIndex)
		if err != nil {
			return nil, err
		}
		b.stopped = true
		if !b.tool {
			return nil, nil
		}
		call, err := b.call()
		if err != nil {
			return nil, err
		}
		return []model.Chunk{{Kind: model.ChunkToolCall, ToolCall: &call}}, nil
	case *types.ConverseStreamOutputMemberMessageStop:
		m.stopped, m.stop = true, ev.Value.StopReason
	case *types.ConverseStreamOutputMemberMetadata:
		m.usage = ev.Value.Usage
		if m.usage == nil {
			m.usage = &types.TokenUsage{}
		}
		u := usage(m.usage)
		return []model.Chunk{{Kind: model.ChunkUsage, Usage: &u}}, nil
	}
	return nil, nil
}

// block returns the block at index i, adding it on first sight.
func (m *message) block(i *int32) (*block, error) {
	if i == nil {
		return nil, fmt.Errorf("%w: a content block event without its contentBlockIndex", ErrBrokenStream)
	}
	if m.blocks == nil {
		m.blocks = map[int32]*block{}
	}
	b, ok := m.blocks[*i]
	if !ok {
		b = &block{}
		m.blocks[*i] = b
		m.order = append(m.order, *i)
	}
	return b, nil
}

// call returns the tool call of a stopped tool block, its input rendered
// as Complete renders the input Converse returns.
func (b *block) call() (model.ToolCall, error) {
	doc, err := b.document()
	if err != nil {
		return model.ToolCall{}, err
	}
	payload, err := fromDocument(doc)
	if err != nil {
		return model.ToolCall{}, fmt.Errorf("bedrock: tool call %q: %w", b.id, err)
	}
	return model.ToolCall{ID: b.id, Name: b.name, Payload: payload}, nil
}

// document is the block's input as the SDK's document; no input is the
// empty object.
func (b *block) document() (document.Interface, error) {
	text := b.input.String()
	if strings.TrimSpace(text) == "" {
		text = "{}"
	}
	doc, err := toDocument([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("%w: the input of tool call %q (%s) is not JSON: %v", ErrBrokenStream, b.id, b.name, err)
	}
	return doc, nil
}

// missing names what a stream that ended early lacked.
func (m *message) missing() string {
	switch {
	case !m.stopped && m.usage == nil:
		return "messageStop and metadata"
	case !m.stopped:
		return "messageStop"
	default:
		return "metadata"
	}
}

// response maps the streamed message as Complete maps a Converse output
// (toResponse), so both return the same response for the same content.
func (m *message) response() (*model.Response, error) {
	var content []types.ContentBlock
	for _, i := range slices.Sorted(slices.Values(m.order)) {
		b := m.blocks[i]
		if !b.tool {
			content = append(content, &types.ContentBlockMemberText{Value: b.text.String()})
			continue
		}
		if !b.stopped {
			return nil, fmt.Errorf("bedrock: converse stream: %w: tool call %q never stopped", model.ErrStreamInterrupted, b.id)
		}
		doc, err := b.document()
		if err != nil {
			return nil, err
		}
		content = append(content, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
			ToolUseId: aws.String(b.id), Name: aws.String(b.name), Input: doc,
		}})
	}
	return toResponse(&bedrockruntime.ConverseOutput{
		Output:     &types.ConverseOutputMemberMessage{Value: types.Message{Role: types.ConversationRoleAssistant, Content: content}},
		StopReason: m.stop,
		Usage:      m.usage,
	})
}
