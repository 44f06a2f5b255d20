package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/internal/streamtest"
	"github.com/quiver-go/quiver/model"
)

// sse streams chat.completion.chunk events as the server sends them, then
// "data: [DONE]".
func sse(chunks ...string) providerfake.Answer {
	var events []providerfake.Event
	for _, c := range chunks {
		events = append(events, providerfake.Event{Data: c})
	}
	return providerfake.Stream(append(events, providerfake.Event{Data: "[DONE]"})...)
}

const chunkHead = `{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1767225600,"model":"qwen3-8b","choices":`

func hi() *model.Request {
	return &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Tools: catalogTools()[:2]}
}

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
	st, err := p.client().Stream(ctx(t), hi())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ChunkKind{model.ChunkText, model.ChunkText, model.ChunkToolCallDelta, model.ChunkToolCallDelta, model.ChunkToolCallDelta, model.ChunkToolCall, model.ChunkUsage, model.ChunkDone}
	if !reflect.DeepEqual(streamtest.Kinds(got), want) || got[0].Text != "Let me " || got[1].Text != "check." {
		t.Fatalf("chunks = %v, want %v", streamtest.Kinds(got), want)
	}
	for i, args := range []string{"", `{"sql":`, `"select 1"}`} {
		if d := got[2+i].ToolCallDelta; *d != (model.ToolCallDelta{ID: "call_1", Name: "runQuery", Arguments: args}) {
			t.Fatalf("delta %d = %+v", i, d)
		}
	}
	if tc := got[5].ToolCall; tc.ID != "call_1" || tc.Name != "runQuery" || string(tc.Payload) != `{"sql":"select 1"}` {
		t.Fatalf("tool call chunk = %+v", tc)
	}
	resp := got[7].Response
	if resp.Text() != "Let me check." || len(resp.ToolCalls) != 1 || resp.StopReason != model.StopToolUse || resp.Usage != (model.Usage{InputTokens: 50, OutputTokens: 12}) {
		t.Fatalf("response = %+v", resp)
	}
	if *got[6].Usage != resp.Usage {
		t.Fatalf("usage chunk %+v, response usage %+v", *got[6].Usage, resp.Usage)
	}
	providerfake.AssertJSON(t, "request", p.Request(0).Body, body([]string{userMsg("hi")}, toolsJSON(listTablesWire, runQueryWire),
		`"stream":true,"stream_options":{"include_usage":true}`))
}

// TestStreamDeliversTextBeforeTheCompletionEnds holds every event after
// the first word: the word arrives while the server has not finished.
func TestStreamDeliversTextBeforeTheCompletionEnds(t *testing.T) {
	events := providerfake.ChatStreamEvents(providerfake.ChatReply("Hello there, friend.", usage))
	release := make(chan struct{})
	for i := 2; i < len(events); i++ { // 0 is the role chunk, 1 the first word
		events[i].Wait = release
	}
	p := newProvider(t, providerfake.Stream(events...))
	st, err := p.client().Stream(ctx(t), hi())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Recv()
	if err != nil || c.Kind != model.ChunkText || c.Text != "Hello " {
		t.Fatalf("first chunk %+v, %v; want the text %q while the rest is held", c, err, "Hello ")
	}
	close(release)
	rest, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	text := c.Text
	for _, c := range rest {
		text += c.Text
	}
	if last := rest[len(rest)-1]; text != "Hello there, friend." || last.Kind != model.ChunkDone || last.Response.Text() != text {
		t.Fatalf("streamed %q, then %+v", text, last)
	}
}

// TestStreamArgumentDeltasMakeTheCallsCompleteWouldReturn streams the
// completion Complete reads: the deltas of each call join into its
// arguments, each call is delivered before the next one's deltas, and
// the final response is Complete's.
func TestStreamArgumentDeltasMakeTheCallsCompleteWouldReturn(t *testing.T) {
	completion := providerfake.ChatCompletion("tool_calls", "Two queries.", usage,
		providerfake.ChatCall{ID: "call_a", Name: "runQuery", Args: `{"sql":"select count(*) from orders"}`},
		providerfake.ChatCall{ID: "call_b", Name: "listTables", Args: `{"schema":"public"}`})
	p := newProvider(t, providerfake.OK(completion), providerfake.OK(completion))
	c := p.client()
	want, err := c.Complete(ctx(t), hi())
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Stream(ctx(t), hi())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]string{}
	var delivered []model.ToolCall
	for _, ch := range got {
		switch ch.Kind {
		case model.ChunkToolCallDelta:
			d := ch.ToolCallDelta
			if len(delivered) > 0 && delivered[len(delivered)-1].ID == d.ID {
				t.Fatalf("a delta of %s after its call was delivered", d.ID)
			}
			if d.Name != map[string]string{"call_a": "runQuery", "call_b": "listTables"}[d.ID] {
				t.Fatalf("delta %+v names the wrong tool", d)
			}
			args[d.ID] += d.Arguments
		case model.ChunkToolCall:
			delivered = append(delivered, *ch.ToolCall)
		}
	}
	if !reflect.DeepEqual(delivered, want.ToolCalls) {
		t.Fatalf("calls delivered %+v, Complete returned %+v", delivered, want.ToolCalls)
	}
	for _, tc := range want.ToolCalls {
		if args[tc.ID] != string(tc.Payload) {
			t.Fatalf("the deltas of %s join into %q, want %s", tc.ID, args[tc.ID], tc.Payload)
		}
	}
	if last := got[len(got)-1]; last.Kind != model.ChunkDone || !reflect.DeepEqual(last.Response, want) {
		t.Fatalf("final response %+v, Complete returned %+v", last.Response, want)
	}
}

// TestStreamInterruptedMidArgumentsHasNoCall cuts the connection in the
// middle of a call's arguments, after a chunk without tool calls (on which
// the SDK's JustFinishedToolCallForChoice calls the call finished): the
// stream fails with ErrStreamInterrupted and delivers no call and no
// response.
func TestStreamInterruptedMidArgumentsHasNoCall(t *testing.T) {
	p := newProvider(t, providerfake.Answer{Cut: true, Events: []providerfake.Event{
		{Data: chunkHead + `[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"runQuery","arguments":""}}]},"finish_reason":null}]}`},
		{Data: chunkHead + `[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"sql\":\"drop"}}]},"finish_reason":null}]}`},
		{Data: chunkHead + `[{"index":0,"delta":{},"finish_reason":null}]}`},
	}})
	st, err := p.client().Stream(ctx(t), hi())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	if !errors.Is(err, model.ErrStreamInterrupted) {
		t.Fatalf("err = %v, want ErrStreamInterrupted", err)
	}
	if want := []model.ChunkKind{model.ChunkToolCallDelta, model.ChunkToolCallDelta}; !reflect.DeepEqual(streamtest.Kinds(got), want) {
		t.Fatalf("chunks before the error = %v, want only the deltas %v", streamtest.Kinds(got), want)
	}
	if _, err := st.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("Recv after the failure = %v, want io.EOF", err)
	}
}

// TestStreamEndingWithoutFinishReasonIsInterrupted ends the events
// properly ([DONE], the body closed) but without a finish_reason.
func TestStreamEndingWithoutFinishReasonIsInterrupted(t *testing.T) {
	events := providerfake.ChatStreamEvents(providerfake.ChatToolCall("call_1", "runQuery", `{"sql":"select 1"}`, usage))
	var kept []providerfake.Event
	for _, e := range events {
		if !strings.Contains(e.Data, `"finish_reason":"tool_calls"`) {
			kept = append(kept, e)
		}
	}
	p := newProvider(t, providerfake.Stream(kept...))
	st, err := p.client().Stream(ctx(t), hi())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	if !errors.Is(err, model.ErrStreamInterrupted) || !strings.Contains(err.Error(), "without a finish_reason") {
		t.Fatalf("err = %v, want ErrStreamInterrupted naming the missing finish_reason", err)
	}
	for _, c := range got {
		if c.Kind == model.ChunkToolCall || c.Kind == model.ChunkDone {
			t.Fatalf("delivered %+v from a stream that never finished", c)
		}
	}
}

// TestStreamCloseCancelsTheRequest closes a stream whose server still
// holds events: the server sees its client go away.
func TestStreamCloseCancelsTheRequest(t *testing.T) {
	events := providerfake.ChatStreamEvents(providerfake.ChatReply("Hello there", usage))
	never := make(chan struct{})
	for i := 2; i < len(events); i++ {
		events[i].Wait = never
	}
	p := newProvider(t, providerfake.Stream(events...))
	st, err := p.client().Stream(ctx(t), hi())
	if err != nil {
		t.Fatal(err)
	}
	if c, err := st.Recv(); err != nil || c.Text != "Hello " {
		t.Fatalf("first chunk %+v, %v", c, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Gone(0):
	case <-ctx(t).Done():
		t.Fatal("the server never saw the client go away after Close")
	}
	if _, err := st.Recv(); !errors.Is(err, model.ErrStreamClosed) {
		t.Fatalf("Recv after Close = %v, want ErrStreamClosed", err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestStreamReportsTheUsageChunk reads the usage the server sends in its
// last chunk (stream_options.include_usage), cached tokens included.
func TestStreamReportsTheUsageChunk(t *testing.T) {
	p := newProvider(t, providerfake.OK(providerfake.ChatReply("ok", providerfake.Usage{Input: 90, CacheRead: 64, Output: 3})))
	st, err := p.client().Stream(ctx(t), hi())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	n := len(got)
	if n < 2 || got[n-2].Kind != model.ChunkUsage || got[n-1].Kind != model.ChunkDone {
		t.Fatalf("chunks = %v, want a usage chunk before the response", streamtest.Kinds(got))
	}
	want := model.Usage{InputTokens: 90, OutputTokens: 3, CacheReadTokens: 64}
	if *got[n-2].Usage != want || got[n-1].Response.Usage != want {
		t.Fatalf("usage chunk %+v, response usage %+v, want %+v", *got[n-2].Usage, got[n-1].Response.Usage, want)
	}
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
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusTooManyRequests || pe.Message != "queue full" || errors.Is(err, model.ErrStreamInterrupted) {
		t.Fatalf("err = %v", err)
	}
}

// TestStreamWithPortableSearchStreamsEveryRoundFromTheServer streams an
// invocation with a search round from a Chat Completions server: both
// requests stream, the search is one ChunkSearch, the search_tools call
// never reaches the stream, the second request carries the found tool and
// the final response is the one Complete returns.
func TestStreamWithPortableSearchStreamsEveryRoundFromTheServer(t *testing.T) {
	answers := []providerfake.Answer{
		callsTool("call_s1", "search_tools", `{"query":"export a table to csv"}`),
		callsTool("call_b1", "startExport", `{"table":"orders"}`),
	}
	p := newProvider(t, append(answers, answers...)...)
	c := p.client()
	want, err := c.Complete(ctx(t), portableRequest(model.UserMessage("Export orders")))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Stream(ctx(t), portableRequest(model.UserMessage("Export orders")))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	var search []model.SearchRound
	var calls []string
	for _, ch := range got {
		switch ch.Kind {
		case model.ChunkToolCallDelta:
			if ch.ToolCallDelta.Name != "startExport" {
				t.Fatalf("a delta of %q reached the stream", ch.ToolCallDelta.Name)
			}
		case model.ChunkToolCall:
			calls = append(calls, ch.ToolCall.Name)
		case model.ChunkSearch:
			search = append(search, *ch.Search)
		}
	}
	if len(search) != 1 || search[0].Query != "export a table to csv" || !reflect.DeepEqual(search[0].Found, []string{"startExport"}) {
		t.Fatalf("searches = %+v", search)
	}
	if !reflect.DeepEqual(calls, []string{"startExport"}) {
		t.Fatalf("calls = %v", calls)
	}
	for i := 2; i < 4; i++ {
		if p.Body(i)["stream"] != true {
			t.Fatalf("request %d did not ask for a stream", i+1)
		}
		// The streamed invocation sends what Complete sent, streaming.
		b := p.Body(i)
		delete(b, "stream")
		delete(b, "stream_options")
		raw, _ := json.Marshal(b)
		providerfake.AssertJSON(t, fmt.Sprintf("streamed request %d", i-1), raw, string(p.Request(i-2).Body))
	}
	if last := got[len(got)-1]; last.Kind != model.ChunkDone || !reflect.DeepEqual(last.Response, want) {
		t.Fatalf("final response %+v\nComplete returned %+v", last.Response, want)
	}
}
