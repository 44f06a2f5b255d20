package providerfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// streamedMessage is a Message with every kind of block the converter
// streams in its own way.
var streamedMessage = providerfake.AnthropicMessage("msg_s", "tool_use", providerfake.Usage{Input: 120, CacheRead: 20, Output: 45},
	`{"type":"thinking","thinking":"The user wants an export.","signature":"sig_1"}`,
	`{"type":"text","text":"Let me find the tool — <export> & go."}`,
	providerfake.AnthropicHostedSearch("srvtoolu_1", "export records", "records_export"),
	providerfake.AnthropicToolUse("toolu_1", "records_export", `{"table":"orders","format":"csv"}`),
)

// accumulate decodes events as the SDK does and builds the message.
func accumulate(t *testing.T, events []providerfake.Event) (sdk.Message, []string) {
	t.Helper()
	var (
		m     sdk.Message
		types []string
	)
	for i, e := range events {
		var ev sdk.MessageStreamEventUnion
		if err := json.Unmarshal([]byte(e.Data), &ev); err != nil {
			t.Fatalf("event %d (%s) does not decode: %v\n%s", i, e.Name, err, e.Data)
		}
		if ev.Type != e.Name {
			t.Fatalf("event %d is named %q and has type %q", i, e.Name, ev.Type)
		}
		types = append(types, ev.Type)
		if err := m.Accumulate(ev); err != nil {
			t.Fatalf("event %d (%s): %v", i, e.Name, err)
		}
	}
	return m, types
}

func TestAnthropicStreamEventsRebuildTheMessage(t *testing.T) {
	events := providerfake.AnthropicStreamEvents(streamedMessage)
	got, types := accumulate(t, events)
	var want sdk.Message
	if err := json.Unmarshal([]byte(streamedMessage), &want); err != nil {
		t.Fatal(err)
	}
	if got.ID != want.ID || got.StopReason != want.StopReason || got.Usage.InputTokens != 120 || got.Usage.OutputTokens != 45 || got.Usage.CacheReadInputTokens != 20 {
		t.Fatalf("message %s stop %q usage %+v, want %s tool_use 120/20/45", got.ID, got.StopReason, got.Usage, want.ID)
	}
	if len(got.Content) != len(want.Content) {
		t.Fatalf("%d blocks, want %d", len(got.Content), len(want.Content))
	}
	for i := range want.Content {
		if g, w := got.Content[i].RawJSON(), want.Content[i].RawJSON(); g != w {
			t.Errorf("block %d accumulates to\n %s\nwant\n %s", i, g, w)
		}
	}
	// Streamed fields arrive in pieces; the others whole.
	count := map[string]int{}
	for _, typ := range types {
		count[typ]++
	}
	if types[0] != "message_start" || types[len(types)-2] != "message_delta" || types[len(types)-1] != "message_stop" {
		t.Fatalf("event order %v", types)
	}
	if count["content_block_start"] != 5 || count["content_block_stop"] != 5 || count["content_block_delta"] < 12 {
		t.Fatalf("events %v", count)
	}
}

func TestAnthropicStreamStartsEachBlockEmpty(t *testing.T) {
	events := providerfake.AnthropicStreamEvents(streamedMessage)
	var starts []string
	for _, e := range events {
		if e.Name == "content_block_start" {
			var ev struct {
				ContentBlock json.RawMessage `json:"content_block"`
			}
			if err := json.Unmarshal([]byte(e.Data), &ev); err != nil {
				t.Fatal(err)
			}
			starts = append(starts, string(ev.ContentBlock))
		}
	}
	want := []string{
		`{"type":"thinking","thinking":"","signature":""}`,
		`{"type":"text","text":""}`,
		`{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{},"caller":{"type":"direct"}}`,
		`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"records_export"}]}}`,
		`{"type":"tool_use","id":"toolu_1","name":"records_export","input":{},"caller":{"type":"direct"}}`,
	}
	if strings.Join(starts, "\n") != strings.Join(want, "\n") {
		t.Fatalf("block starts:\n%s\nwant:\n%s", strings.Join(starts, "\n"), strings.Join(want, "\n"))
	}
}

func TestAnthropicStreamEventsRefuseWhatIsNotAMessage(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"type" is "response", want "message"`) {
			t.Fatalf("recovered %v", r)
		}
	}()
	providerfake.AnthropicStreamEvents(`{"type":"response","content":[]}`)
}

func TestAScriptedMessageIsStreamedToAStreamRequest(t *testing.T) {
	s := providerfake.New(t, "/v1/messages", providerfake.OK(streamedMessage), providerfake.OK(streamedMessage))
	resp, body := post(t, s.URL()+"/v1/messages", `{"stream":true}`)
	if ct := resp.Header.Get("Content-Type"); ct != providerfake.AnthropicStreamContentType {
		t.Fatalf("Content-Type %q", ct)
	}
	want := ""
	for _, e := range providerfake.AnthropicStreamEvents(streamedMessage) {
		want += "event: " + e.Name + "\ndata: " + e.Data + "\n\n"
	}
	if body != want {
		t.Fatalf("stream body:\n%s\nwant:\n%s", body, want)
	}
	// A request that does not ask for a stream gets the message whole.
	if _, body := post(t, s.URL()+"/v1/messages", `{}`); body != streamedMessage {
		t.Fatalf("whole answer %s", body)
	}
}

func TestAnthropicBedrockEventsAreEventStreamFrames(t *testing.T) {
	events := providerfake.AnthropicStreamEvents(streamedMessage)
	frames := providerfake.AnthropicBedrockEvents(events)
	s := providerfake.New(t, "/model/m/invoke-with-response-stream", providerfake.Answer{
		Events: frames, Header: map[string]string{"Content-Type": providerfake.BedrockStreamContentType}})
	resp, err := http.Post(s.URL()+"/model/m/invoke-with-response-stream", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != providerfake.BedrockStreamContentType {
		t.Fatalf("Content-Type %q", ct)
	}
	// Each frame: total length, headers length, then its payload carries
	// the event's JSON in base64; the frames follow each other exactly.
	for i, e := range events {
		if len(raw) < 12 {
			t.Fatalf("frame %d: %d bytes left", i, len(raw))
		}
		total := int(raw[0])<<24 | int(raw[1])<<16 | int(raw[2])<<8 | int(raw[3])
		hlen := int(raw[4])<<24 | int(raw[5])<<16 | int(raw[6])<<8 | int(raw[7])
		frame := raw[:total]
		raw = raw[total:]
		if !strings.Contains(string(frame[12:12+hlen]), ":event-type") {
			t.Fatalf("frame %d headers %q", i, frame[12:12+hlen])
		}
		var chunk struct {
			Bytes []byte `json:"bytes"`
		}
		if err := json.Unmarshal(frame[12+hlen:total-4], &chunk); err != nil {
			t.Fatalf("frame %d payload: %v", i, err)
		}
		if string(chunk.Bytes) != e.Data {
			t.Fatalf("frame %d carries %s, want %s", i, chunk.Bytes, e.Data)
		}
	}
	if len(raw) != 0 {
		t.Fatalf("%d bytes after the frames", len(raw))
	}
}
