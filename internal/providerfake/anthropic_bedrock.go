package providerfake

import (
	"encoding/base64"
	"encoding/json"
)

// Claude on Amazon Bedrock streaming (POST /model/{id}/invoke-with-response-stream):
// the response is an AWS event stream (application/vnd.amazon.eventstream),
// binary frames whose "chunk" events carry, base64-encoded, the JSON of
// the Messages stream's events (Bedrock API reference,
// InvokeModelWithResponseStream, ResponseStream: PayloadPart.bytes; the
// SDK's bedrock middleware turns them back into server-sent events).

// AnthropicBedrockEvents turns Messages stream events (from
// [AnthropicStreamEvents], held or cut as the test likes) into the binary
// frames Bedrock streams for them, each one Raw and keeping its Wait. An
// answer serving them needs Header {"Content-Type": [BedrockStreamContentType]}.
func AnthropicBedrockEvents(events []Event) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		out[i] = Event{Raw: bedrockChunkFrame([]byte(e.Data)), Wait: e.Wait}
	}
	return out
}

// bedrockChunkFrame is the "chunk" event carrying data: its payload is
// {"bytes":"<base64 of data>"}, written as every Bedrock frame is
// ([BedrockEvent]).
func bedrockChunkFrame(data []byte) []byte {
	payload, _ := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(data)})
	return BedrockEvent("chunk", string(payload)).Raw
}
