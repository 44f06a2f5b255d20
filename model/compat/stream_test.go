package compat

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

// sse renders chat.completion.chunk events as the server streams them.
func sse(chunks ...string) providerfake.Answer {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return providerfake.Answer{Body: b.String(), Header: map[string]string{"Content-Type": "text/event-stream"}}
}

const chunkHead = `{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1767225600,"model":"qwen3-8b","choices":`

func TestStreamDeliversTextThenToolCallsThenTheWholeResponse(t *testing.T) {
	p := newProvider(t, sse(
		chunkHead+`[{"index":0,"delta":{"role":"assistant","content":"Let me "},"finish_reason":null}]}`,
		chunkHead+`[{"index":0,"delta":{"content":"check."},"finish_reason":null}]}`,
		chunkHead+`[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"runQuery","arguments":""}}]},"finish_reason":null}]}`,
		chunkHead+`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"sql\":"}}]},"finish_reason":null}]}`,
		chunkHead+`[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"select 1\"}"}}]},"finish_reason":null}]}`,
		chunkHead+`[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		chunkHead+`[],"usage":{"prompt_tokens":50,"completion_tokens":12,"total_tokens":62}}`,
	))
	st, err := p.client().Stream(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Tools: catalogTools()[:2]})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var got []model.Chunk
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if len(got) != 4 || got[0].Text != "Let me " || got[1].Text != "check." || got[2].Kind != model.ChunkToolCall || got[3].Kind != model.ChunkDone {
		t.Fatalf("chunks = %+v", got)
	}
	if tc := got[2].ToolCall; tc.ID != "call_1" || tc.Name != "runQuery" || string(tc.Payload) != `{"sql":"select 1"}` {
		t.Fatalf("tool call chunk = %+v", tc)
	}
	resp := got[3].Response
	if resp.Text() != "Let me check." || len(resp.ToolCalls) != 1 || resp.StopReason != model.StopToolUse || resp.Usage != (model.Usage{InputTokens: 50, OutputTokens: 12}) {
		t.Fatalf("response = %+v", resp)
	}
	providerfake.AssertJSON(t, "request", p.Request(0).Body, body([]string{userMsg("hi")}, toolsJSON(listTablesWire, runQueryWire),
		`"stream":true,"stream_options":{"include_usage":true}`))
}

func TestStreamReportsAProviderErrorOnFirstRecv(t *testing.T) {
	p := newProvider(t, providerfake.Answer{Status: http.StatusTooManyRequests, Body: `{"error":{"message":"queue full","type":"rate_limit"}}`})
	st, err := p.client().Stream(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.Recv()
	var pe *APIError
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusTooManyRequests || pe.Message != "queue full" {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamWithPortableSearchCompletesTheRoundsFirst(t *testing.T) {
	p := newProvider(t,
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		callsTool("call_b1", "startExport", `{"table":"orders"}`),
	)
	st, err := p.client().Stream(ctx(t), portableRequest(model.UserMessage("Export orders")))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var calls []string
	var done *model.Response
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch c.Kind {
		case model.ChunkToolCall:
			calls = append(calls, c.ToolCall.Name)
		case model.ChunkDone:
			done = c.Response
		}
	}
	if len(calls) != 1 || calls[0] != "startExport" || done == nil || len(done.Messages) != 3 {
		t.Fatalf("calls %v, response %+v", calls, done)
	}
}
