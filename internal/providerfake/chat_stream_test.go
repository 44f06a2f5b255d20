package providerfake_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/quiver-go/quiver/internal/providerfake"
)

// TestChatStreamEventsDecodeAndAddUpToTheCompletion decodes every built
// chunk with the SDK and accumulates them as model/compat does: the
// result holds the completion's text, calls, finish reason and usage, and
// the text and the arguments arrived in more than one piece each.
func TestChatStreamEventsDecodeAndAddUpToTheCompletion(t *testing.T) {
	completion := providerfake.ChatCompletion("tool_calls", "Let me run that query.", providerfake.Usage{Input: 50, CacheRead: 8, Output: 12},
		providerfake.ChatCall{ID: "call_1", Name: "runQuery", Args: `{"sql":"select * from orders — all"}`},
		providerfake.ChatCall{ID: "call_2", Name: "listTables", Args: `{}`})
	events := providerfake.ChatStreamEvents(completion)
	if n := len(events); n < 8 || events[n-1].Data != "[DONE]" {
		t.Fatalf("events = %+v, want the chunks then [DONE]", events)
	}
	var acc openai.ChatCompletionAccumulator
	textPieces, argPieces := 0, 0
	for i, e := range events[:len(events)-1] {
		var chunk openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(e.Data), &chunk); err != nil {
			t.Fatalf("event %d does not decode: %v\n%s", i, err, e.Data)
		}
		if chunk.Object != "chat.completion.chunk" || chunk.ID != "chatcmpl-1" {
			t.Fatalf("event %d: object %q id %q", i, chunk.Object, chunk.ID)
		}
		for _, ch := range chunk.Choices {
			if ch.Delta.Content != "" {
				textPieces++
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == 0 && tc.Function.Arguments != "" {
					argPieces++
				}
			}
		}
		if !acc.AddChunk(chunk) {
			t.Fatalf("event %d does not continue the chunks before it: %s", i, e.Data)
		}
	}
	if textPieces < 2 || argPieces < 2 {
		t.Fatalf("%d text pieces and %d argument pieces of the first call, want the text and arguments split", textPieces, argPieces)
	}
	msg := acc.Choices[0].Message
	if msg.Content != "Let me run that query." || acc.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 2 {
		t.Fatalf("accumulated %+v", acc.Choices[0])
	}
	if tc := msg.ToolCalls[0]; tc.ID != "call_1" || tc.Function.Name != "runQuery" || tc.Function.Arguments != `{"sql":"select * from orders — all"}` {
		t.Fatalf("call 1 = %+v", tc)
	}
	if tc := msg.ToolCalls[1]; tc.ID != "call_2" || tc.Function.Name != "listTables" || tc.Function.Arguments != `{}` {
		t.Fatalf("call 2 = %+v", tc)
	}
	if u := acc.Usage; u.PromptTokens != 50 || u.CompletionTokens != 12 || u.PromptTokensDetails.CachedTokens != 8 {
		t.Fatalf("usage = %+v", u)
	}
}

func TestChatStreamEventsRefusesWhatIsNotAChatCompletion(t *testing.T) {
	for _, body := range []string{`{}`, `not json`, providerfake.OpenAIResponse("resp_1", providerfake.Usage{})} {
		if events := providerfake.ChatStreamEvents(body); events != nil {
			t.Errorf("ChatStreamEvents(%.40s) = %d events, want nil", body, len(events))
		}
	}
}

// TestAScriptedChatCompletionAnswersAStreamRequestAsChunks posts a
// request asking for a stream: the whole scripted chat.completion comes
// back as server-sent chunks.
func TestAScriptedChatCompletionAnswersAStreamRequestAsChunks(t *testing.T) {
	s := providerfake.New(t, "/v1/chat/completions", providerfake.OK(providerfake.ChatReply("Hello there", providerfake.Usage{Input: 3, Output: 2})))
	resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"qwen3-8b","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	var data []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, d := range data[:len(data)-1] {
		var chunk openai.ChatCompletionChunk
		if err := json.Unmarshal([]byte(d), &chunk); err != nil {
			t.Fatalf("%v: %s", err, d)
		}
		for _, ch := range chunk.Choices {
			text.WriteString(ch.Delta.Content)
		}
	}
	if text.String() != "Hello there" || data[len(data)-1] != "[DONE]" {
		t.Fatalf("streamed %q, last event %q", text.String(), data[len(data)-1])
	}
}
