package providerfake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/smithy-go/eventstream"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// TestBedrockStreamEventsAreConverseStreamFrames decodes the frames of a
// Converse answer with smithy-go's decoder (the SDK's codec): events in
// ConverseStream's order, whose pieces join into the answer's text and
// tool input.
func TestBedrockStreamEventsAreConverseStreamFrames(t *testing.T) {
	answer := `{"output":{"message":{"role":"assistant","content":[{"text":"Let me look."},{"toolUse":{"toolUseId":"tu_1","name":"startExport","input":{"table":"orders","format":"csv"}}}]}},"stopReason":"tool_use","usage":{"inputTokens":100,"outputTokens":20,"totalTokens":120}}`
	s := providerfake.New(t, "/model/m/converse-stream", providerfake.OK(answer))
	resp, err := http.Post(s.URL()+"/model/m/converse-stream", "application/json", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != providerfake.BedrockStreamContentType {
		t.Fatalf("Content-Type = %q", ct)
	}
	dec := eventstream.NewDecoder()
	var types []string
	var text, input string
	var last map[string]any
	for {
		msg, err := dec.Decode(resp.Body, nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if mt := msg.Headers.Get(eventstream.MessageTypeHeader); mt == nil || mt.String() != "event" {
			t.Fatalf("message type %v", mt)
		}
		et := msg.Headers.Get(eventstream.EventTypeHeader).String()
		if n := len(types); n == 0 || types[n-1] != et {
			types = append(types, et)
		}
		var payload map[string]any
		if err := json.Unmarshal(msg.Payload, &payload); err != nil {
			t.Fatalf("%s payload: %v", et, err)
		}
		if d, ok := payload["delta"].(map[string]any); ok {
			if s, ok := d["text"].(string); ok {
				text += s
			}
			if tu, ok := d["toolUse"].(map[string]any); ok {
				input += tu["input"].(string)
			}
		}
		last = payload
	}
	want := "messageStart contentBlockDelta contentBlockStop contentBlockStart contentBlockDelta contentBlockStop messageStop metadata"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("events %s\nwant   %s", got, want)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, []byte(`{"table":"orders","format":"csv"}`))
	if text != "Let me look." || input != compact.String() {
		t.Fatalf("text %q, input %q", text, input)
	}
	if u := last["usage"].(map[string]any); u["inputTokens"] != float64(100) || u["outputTokens"] != float64(20) {
		t.Fatalf("metadata %v", last)
	}
	if providerfake.BedrockStreamEvents(`{"id":"chatcmpl-1"}`) != nil {
		t.Fatal("converted what is not a Converse answer")
	}
}
