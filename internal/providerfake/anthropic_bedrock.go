package providerfake

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
)

// Claude on Amazon Bedrock streaming (POST /model/{id}/invoke-with-response-stream):
// the response is an AWS event stream (application/vnd.amazon.eventstream),
// binary frames whose "chunk" events carry, base64-encoded, the JSON of
// the Messages stream's events (Bedrock API reference,
// InvokeModelWithResponseStream, ResponseStream: PayloadPart.bytes; the
// SDK's bedrock middleware turns them back into server-sent events).

// BedrockStreamContentType is the content type of a Bedrock response
// stream; an answer of [AnthropicBedrockEvents] sets it as its
// Content-Type header.
const BedrockStreamContentType = "application/vnd.amazon.eventstream"

// AnthropicBedrockEvents turns Messages stream events (from
// [AnthropicStreamEvents], held or cut as the test likes) into the binary
// frames Bedrock streams for them, each one Raw and keeping its Wait. An
// answer serving them needs Header {"Content-Type": BedrockStreamContentType}.
func AnthropicBedrockEvents(events []Event) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		out[i] = Event{Raw: bedrockChunkFrame([]byte(e.Data)), Wait: e.Wait}
	}
	return out
}

// bedrockChunkFrame encodes one "chunk" event carrying data: an AWS event
// stream message (AWS docs, "Event stream encoding"): a prelude of the
// total length, the headers' length and the prelude's CRC-32, the headers
// (name length, name, value type 7 = string, value length, value), the
// payload {"bytes":"<base64 of data>"}, and the CRC-32 of all before it,
// big-endian throughout.
func bedrockChunkFrame(data []byte) []byte {
	payload, _ := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(data)})
	var headers bytes.Buffer
	for _, h := range [][2]string{{":message-type", "event"}, {":event-type", "chunk"}, {":content-type", "application/json"}} {
		headers.WriteByte(byte(len(h[0])))
		headers.WriteString(h[0])
		headers.WriteByte(7)
		headers.Write(binary.BigEndian.AppendUint16(nil, uint16(len(h[1]))))
		headers.WriteString(h[1])
	}
	total := 12 + headers.Len() + len(payload) + 4
	frame := binary.BigEndian.AppendUint32(nil, uint32(total))
	frame = binary.BigEndian.AppendUint32(frame, uint32(headers.Len()))
	frame = binary.BigEndian.AppendUint32(frame, crc32.ChecksumIEEE(frame))
	frame = append(frame, headers.Bytes()...)
	frame = append(frame, payload...)
	return binary.BigEndian.AppendUint32(frame, crc32.ChecksumIEEE(frame))
}
