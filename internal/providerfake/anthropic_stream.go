package providerfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Anthropic Messages streaming (POST /v1/messages with "stream": true): the
// server-sent events the API streams for a Message (Anthropic docs,
// "Streaming Messages"; anthropic-sdk-go v2 MessageStreamEventUnion):
// message_start with the message emptied, a ping, per content block a
// content_block_start, its deltas and a content_block_stop, then
// message_delta with the stop reason and the usage, and message_stop.

// AnthropicStreamContentType is the content type of a Messages stream.
const AnthropicStreamContentType = "text/event-stream"

// AnthropicStreamEvents returns the events the Messages API streams for
// messageJSON (a Message object, e.g. built by [AnthropicMessage]), for
// tests that hold events (Event.Wait) or cut the stream (a prefix of the
// events with Answer.Cut). It panics when messageJSON is not a Message: a
// mistake in the test's script, like a bad pattern to regexp.MustCompile.
func AnthropicStreamEvents(messageJSON string) []Event {
	events, err := anthropicEvents([]byte(messageJSON))
	if err != nil {
		panic("providerfake: AnthropicStreamEvents: " + err.Error())
	}
	return events
}

// anthropicStreamOf streams a scripted Message answer to a request that
// asks for a stream; other bodies are not its shape.
func anthropicStreamOf(body []byte) ([]Event, string, bool) {
	events, err := anthropicEvents(body)
	if err != nil {
		return nil, "", false
	}
	return events, AnthropicStreamContentType, true
}

// anthropicEvents builds the stream of a Message. Every block's start
// event keeps the block's fields in their order, with the streamed field
// emptied, so that the SDK's accumulation rebuilds the block byte for byte.
func anthropicEvents(body []byte) ([]Event, error) {
	msg, err := objectFields(body)
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if typ, _ := msg.get("type"); string(typ) != `"message"` {
		return nil, fmt.Errorf(`not a Message: "type" is %s, want "message"`, orNone(typ))
	}
	rawContent, _ := msg.get("content")
	var blocks []json.RawMessage
	if err := json.Unmarshal(rawContent, &blocks); err != nil {
		return nil, fmt.Errorf(`a Message's "content" must be an array of blocks: %w`, err)
	}
	usage, _ := msg.get("usage")
	startUsage, err := objectFields(usage)
	if err != nil {
		return nil, fmt.Errorf(`a Message's "usage" must be an object: %w`, err)
	}
	// message_start carries the input side of the usage and a first output
	// token count; message_delta carries the final counts.
	if out, ok := startUsage.get("output_tokens"); ok && string(out) != "0" {
		startUsage.set("output_tokens", json.RawMessage("1"))
	}
	start := msg.clone()
	start.set("content", json.RawMessage("[]"))
	start.set("stop_reason", json.RawMessage("null"))
	start.set("stop_sequence", json.RawMessage("null"))
	start.set("usage", startUsage.encode())

	events := []Event{
		anthropicEvent("message_start", map[string]any{"type": "message_start", "message": start.encode()}),
		anthropicEvent("ping", map[string]any{"type": "ping"}),
	}
	for i, b := range blocks {
		be, err := blockEvents(i, b)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		events = append(events, be...)
	}
	stop, _ := msg.get("stop_reason")
	seq, ok := msg.get("stop_sequence")
	if !ok {
		seq = json.RawMessage("null")
	}
	events = append(events,
		anthropicEvent("message_delta", map[string]any{
			"type":  "message_delta",
			"delta": map[string]json.RawMessage{"stop_reason": orNull(stop), "stop_sequence": seq},
			"usage": usage,
		}),
		anthropicEvent("message_stop", map[string]any{"type": "message_stop"}),
	)
	return events, nil
}

// blockEvents streams content block i: text and thinking as a few deltas,
// the input of tool_use and server_tool_use as a few input_json_delta
// pieces (the first one empty, as the API sends it), every other block
// whole in its start event.
func blockEvents(i int, raw json.RawMessage) ([]Event, error) {
	b, err := objectFields(raw)
	if err != nil {
		return nil, fmt.Errorf("a content block must be a JSON object: %w", err)
	}
	typ, _ := b.get("type")
	var deltas []map[string]any
	start := b.clone()
	switch string(typ) {
	case `"text"`:
		text, err := stringField(b, "text")
		if err != nil {
			return nil, err
		}
		start.set("text", json.RawMessage(`""`))
		for _, piece := range splitText(text, 3) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": piece})
		}
	case `"thinking"`:
		thinking, err := stringField(b, "thinking")
		if err != nil {
			return nil, err
		}
		signature, _ := stringField(b, "signature")
		start.set("thinking", json.RawMessage(`""`))
		start.set("signature", json.RawMessage(`""`))
		for _, piece := range splitText(thinking, 2) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": piece})
		}
		if signature != "" {
			deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": signature})
		}
	case `"tool_use"`, `"server_tool_use"`:
		input, ok := b.get("input")
		if !ok {
			return nil, fmt.Errorf(`a %s block needs an "input"`, typ)
		}
		start.set("input", json.RawMessage("{}"))
		deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": ""})
		for _, piece := range splitText(string(input), 3) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": piece})
		}
	}
	events := []Event{anthropicEvent("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start.encode()})}
	for _, d := range deltas {
		events = append(events, anthropicEvent("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}))
	}
	return append(events, anthropicEvent("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})), nil
}

// anthropicEvent is an SSE event named name whose data is v's JSON.
func anthropicEvent(name string, v map[string]any) Event {
	// The API writes <, > and & as they are; so does the event.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// v holds only strings, numbers and raw JSON read by objectFields.
		panic("providerfake: encoding a stream event: " + err.Error())
	}
	return SSE(name, string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))))
}

// splitText splits s into at most n pieces of about equal length, never
// inside a UTF-8 sequence; none when s is empty.
func splitText(s string, n int) []string {
	var pieces []string
	size := (len(s) + n - 1) / n
	for len(s) > 0 {
		end := min(size, len(s))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		pieces = append(pieces, s[:end])
		s = s[end:]
	}
	return pieces
}

// stringField returns the string at key of o ("" when absent).
func stringField(o fields, key string) (string, error) {
	raw, ok := o.get(key)
	if !ok {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%q must be a string: %w", key, err)
	}
	return s, nil
}

func orNull(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return json.RawMessage("null")
	}
	return raw
}

func orNone(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	return string(raw)
}

// fields are a JSON object's members in their order, so that an object can
// be changed and written again without reordering its keys.
type fields []field

type field struct {
	key   string
	value json.RawMessage
}

// objectFields reads a JSON object's members in order.
func objectFields(raw []byte) (fields, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("got %v, want an object", tok)
	}
	var out fields
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		out = append(out, field{key: key, value: value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

func (o fields) get(key string) (json.RawMessage, bool) {
	for _, f := range o {
		if f.key == key {
			return f.value, true
		}
	}
	return nil, false
}

// set replaces key's value in place, or appends the member.
func (o *fields) set(key string, value json.RawMessage) {
	for i, f := range *o {
		if f.key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, field{key: key, value: value})
}

func (o fields) clone() fields { return append(fields(nil), o...) }

// encode writes the object, members in order (an event's encoding makes
// it compact).
func (o fields) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(f.key)
		b.Write(key)
		b.WriteByte(':')
		b.Write(f.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
