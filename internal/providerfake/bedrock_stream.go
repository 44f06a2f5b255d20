package providerfake

import (
	"bytes"
	"encoding/json"

	"github.com/aws/smithy-go/eventstream"

	"github.com/quiver-go/quiver/internal/pieces"
)

// Streamed Bedrock Converse (POST /model/{modelId}/converse-stream): the
// binary application/vnd.amazon.eventstream frames of ConverseStream,
// each an event whose :event-type names a member of the SDK's
// types.ConverseStreamOutput (messageStart, contentBlockStart,
// contentBlockDelta, contentBlockStop, messageStop, metadata) and whose
// payload is that event as JSON. The frames are written with smithy-go's
// eventstream encoder, the codec the SDK reads them with.

// BedrockStreamContentType is the content type of a ConverseStream answer.
const BedrockStreamContentType = "application/vnd.amazon.eventstream"

// converseAnswer is the part of a Converse answer its stream repeats.
type converseAnswer struct {
	Output *struct {
		Message *struct {
			Role    string `json:"role"`
			Content []struct {
				Text    *string `json:"text"`
				ToolUse *struct {
					ToolUseID string          `json:"toolUseId"`
					Name      string          `json:"name"`
					Input     json.RawMessage `json:"input"`
				} `json:"toolUse"`
			} `json:"content"`
		} `json:"message"`
	} `json:"output"`
	StopReason string          `json:"stopReason"`
	Usage      json.RawMessage `json:"usage"`
}

// bedrockStreamOf converts a whole Converse answer into its stream.
func bedrockStreamOf(body []byte) ([]Event, string, bool) {
	events, ok := bedrockStream(body)
	return events, BedrockStreamContentType, ok
}

// BedrockStreamEvents returns the frames ConverseStream sends for
// converseJSON (a Converse answer, {"output":{"message":…},"stopReason":…,
// "usage":…}), each an [Event] with Raw set: messageStart, then per
// content block its start (tool use: id and name), its deltas (text in
// words, tool input in pieces) and its stop, then messageStop with the
// stop reason and metadata with the usage. Tests that hold frames back
// (Wait) or cut the stream (Answer.Cut) edit the slice. It returns nil
// when converseJSON is not a Converse answer.
func BedrockStreamEvents(converseJSON string) []Event {
	events, _ := bedrockStream([]byte(converseJSON))
	return events
}

// BedrockEvent is one ConverseStream frame: the event named eventType
// with payload (JSON) — for streams a test writes by hand.
func BedrockEvent(eventType, payload string) Event {
	var msg eventstream.Message
	msg.Headers.Set(eventstream.MessageTypeHeader, eventstream.StringValue(eventstream.EventMessageType))
	msg.Headers.Set(eventstream.EventTypeHeader, eventstream.StringValue(eventType))
	msg.Headers.Set(eventstream.ContentTypeHeader, eventstream.StringValue("application/json"))
	msg.Payload = []byte(payload)
	var buf bytes.Buffer
	// Encoding into memory fails only for headers or payloads over the
	// format's limits (16 MB), which no test writes.
	_ = eventstream.NewEncoder().Encode(&buf, msg)
	return Event{Raw: buf.Bytes()}
}

// bedrockStream builds the frames of body, or reports that body is not a
// Converse answer.
func bedrockStream(body []byte) ([]Event, bool) {
	var a converseAnswer
	if json.Unmarshal(body, &a) != nil || a.Output == nil || a.Output.Message == nil || a.StopReason == "" {
		return nil, false
	}
	event := func(eventType string, payload any) Event {
		raw, _ := json.Marshal(payload) // maps of strings, numbers and raw JSON always encode
		return BedrockEvent(eventType, string(raw))
	}
	role := a.Output.Message.Role
	if role == "" {
		role = "assistant"
	}
	events := []Event{event("messageStart", map[string]any{"role": role})}
	for i, b := range a.Output.Message.Content {
		switch {
		case b.Text != nil:
			for _, piece := range pieces.Words(*b.Text) {
				events = append(events, event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"text": piece}}))
			}
		case b.ToolUse != nil:
			events = append(events, event("contentBlockStart", map[string]any{"contentBlockIndex": i,
				"start": map[string]any{"toolUse": map[string]any{"toolUseId": b.ToolUse.ToolUseID, "name": b.ToolUse.Name}}}))
			var input bytes.Buffer
			if json.Compact(&input, b.ToolUse.Input) != nil {
				return nil, false
			}
			for _, piece := range pieces.Bytes(input.String(), 8) {
				events = append(events, event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"toolUse": map[string]any{"input": piece}}}))
			}
		default:
			continue // blocks the converter does not stream (reasoning, images)
		}
		events = append(events, event("contentBlockStop", map[string]any{"contentBlockIndex": i}))
	}
	events = append(events, event("messageStop", map[string]any{"stopReason": a.StopReason}))
	meta := map[string]any{"metrics": map[string]any{"latencyMs": 1}}
	if len(a.Usage) > 0 {
		meta["usage"] = a.Usage
	}
	return append(events, event("metadata", meta)), true
}

// BedrockException is a ConverseStream exception frame: Bedrock giving up
// in the middle of a stream with exceptionType (throttlingException,
// modelStreamErrorException, …) and message; the SDK's event stream fails
// with that exception.
func BedrockException(exceptionType, message string) Event {
	var msg eventstream.Message
	msg.Headers.Set(eventstream.MessageTypeHeader, eventstream.StringValue(eventstream.ExceptionMessageType))
	msg.Headers.Set(eventstream.ExceptionTypeHeader, eventstream.StringValue(exceptionType))
	msg.Headers.Set(eventstream.ContentTypeHeader, eventstream.StringValue("application/json"))
	raw, _ := json.Marshal(map[string]string{"message": message}) // a map of strings always encodes
	msg.Payload = raw
	var buf bytes.Buffer
	_ = eventstream.NewEncoder().Encode(&buf, msg) // see BedrockEvent
	return Event{Raw: buf.Bytes()}
}
