package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
)

// newStreamProvider starts a local Responses API with the answers and
// returns it with a client bound to it. When the test ends it checks
// that every answer was asked for, each request carrying the key and
// "stream": true.
func newStreamProvider(t *testing.T, answers ...providerfake.Answer) (*providerfake.Server, *Client) {
	t.Helper()
	return fakeResponses(t, answers, func(_ int, r providerfake.Request) { wholeBody(t, r.Body, true) })
}

// streamAll streams req and reads the stream to its end: the chunks
// before ChunkDone, and the response or the error.
func streamAll(t *testing.T, c *Client, req *model.Request) ([]model.Chunk, *model.Response, error) {
	t.Helper()
	st, err := c.Stream(context.Background(), req)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	var chunks []model.Chunk
	resp, err := model.Collect(st, func(ch model.Chunk) error {
		chunks = append(chunks, ch)
		return nil
	})
	return chunks, resp, err
}

// recv receives the next chunk, failing the test on an error.
func recv(t *testing.T, st model.Streamer) model.Chunk {
	t.Helper()
	ch, err := st.Recv()
	if err != nil {
		t.Fatalf("Recv: %v", err)
	}
	return ch
}

// kinds lists the chunks' kinds, a run of one kind written once.
func kinds(chunks []model.Chunk) []model.ChunkKind {
	var out []model.ChunkKind
	for _, ch := range chunks {
		if len(out) == 0 || out[len(out)-1] != ch.Kind {
			out = append(out, ch.Kind)
		}
	}
	return out
}

// ofKind returns the chunks of one kind.
func ofKind(chunks []model.Chunk, kind model.ChunkKind) []model.Chunk {
	var out []model.Chunk
	for _, ch := range chunks {
		if ch.Kind == kind {
			out = append(out, ch)
		}
	}
	return out
}

// checkChunks checks the stream contract between the chunks and the final
// response: text chunks join to its text, the calls are its calls, each
// call's deltas (the first announcing it) join to its arguments and name
// it as the call does, and the usages add up to its usage.
func checkChunks(t *testing.T, chunks []model.Chunk, resp *model.Response) {
	t.Helper()
	var text strings.Builder
	for _, ch := range ofKind(chunks, model.ChunkText) {
		text.WriteString(ch.Text)
	}
	equal(t, "streamed text", text.String(), resp.Text())
	var calls []model.ToolCall
	for _, ch := range ofKind(chunks, model.ChunkToolCall) {
		calls = append(calls, *ch.ToolCall)
	}
	equal(t, "streamed calls", calls, resp.ToolCalls)
	args := map[string]*strings.Builder{}
	for _, ch := range ofKind(chunks, model.ChunkToolCallDelta) {
		d := ch.ToolCallDelta
		if args[d.ID] == nil {
			args[d.ID] = &strings.Builder{}
		}
		args[d.ID].WriteString(d.Arguments)
		if d.Name == searchToolName {
			t.Errorf("a delta of the search tool streamed: %+v", d)
		}
	}
	for _, call := range resp.ToolCalls {
		b := args[call.ID]
		if b == nil {
			t.Errorf("call %s streamed no delta", call.ID)
			continue
		}
		equal(t, "joined arguments of "+call.ID, b.String(), argumentsOf(call.Payload))
	}
	for _, ch := range chunks {
		if ch.Kind == model.ChunkToolCallDelta {
			var owner *model.ToolCall
			for i := range resp.ToolCalls {
				if resp.ToolCalls[i].ID == ch.ToolCallDelta.ID {
					owner = &resp.ToolCalls[i]
				}
			}
			if owner == nil || owner.Name != ch.ToolCallDelta.Name {
				t.Errorf("delta %+v names no call of the response", ch.ToolCallDelta)
			}
		}
	}
	var usage model.Usage
	for _, ch := range ofKind(chunks, model.ChunkUsage) {
		usage = usage.Add(*ch.Usage)
	}
	equal(t, "usage chunks added up", usage, resp.Usage)
}

// argumentsOf is the arguments text a call's payload was made of
// (payloadOf): the text itself when it is JSON, the string a payload
// holds when the text was not JSON.
func argumentsOf(payload json.RawMessage) string {
	var s string
	if json.Unmarshal(payload, &s) == nil {
		return s
	}
	return string(payload)
}

func TestStreamTextArrivesBeforeTheResponseCompletes(t *testing.T) {
	events := providerfake.OpenAIStreamEvents(response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Record r1 is open.")))
	hold := make(chan struct{})
	last := len(events) - 1
	if events[last].Name != "response.completed" {
		t.Fatalf("the stream ends with %s", events[last].Name)
	}
	events[last].Wait = hold
	_, c := newStreamProvider(t, providerfake.Stream(events...))
	st, err := c.Stream(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("Is r1 open?")}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// The whole text arrives while the provider holds its final event.
	var text string
	for text != "Record r1 is open." {
		ch := recv(t, st)
		if ch.Kind != model.ChunkText {
			t.Fatalf("got a %s chunk before the response completed, having streamed %q", ch.Kind, text)
		}
		text += ch.Text
	}
	close(hold)
	if ch := recv(t, st); ch.Kind != model.ChunkUsage || *ch.Usage != (model.Usage{InputTokens: 200, OutputTokens: 5, CacheReadTokens: 50}) {
		t.Fatalf("after the text: %+v, want the usage", ch)
	}
	ch := recv(t, st)
	if ch.Kind != model.ChunkDone || ch.Response.Text() != text || ch.Response.StopReason != model.StopEndTurn {
		t.Fatalf("final chunk %+v", ch)
	}
	if _, err := st.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("after ChunkDone: %v, want io.EOF", err)
	}
}

func TestStreamedCallIsTheCallCompleteReturns(t *testing.T) {
	const args = `{"id":"r1","note":"déjà vu"}`
	answer := response("resp_1", "completed", 9,
		providerfake.OpenAIMessage("msg_1", "Looking."),
		providerfake.OpenAIFunctionCall("fc_1", "call_1", "lookup", "", args))
	_, whole := newProvider(t, exchange{body: answer})
	want, err := whole.Complete(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	_, c := newStreamProvider(t, providerfake.OK(answer))
	chunks, resp, err := streamAll(t, c, baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "chunks", kinds(chunks), []model.ChunkKind{model.ChunkText, model.ChunkToolCallDelta, model.ChunkToolCall, model.ChunkUsage})
	deltas := ofKind(chunks, model.ChunkToolCallDelta)
	if len(deltas) < 3 {
		t.Fatalf("%d deltas: the call was not streamed in pieces", len(deltas))
	}
	equal(t, "announcing delta", *deltas[0].ToolCallDelta, model.ToolCallDelta{ID: "call_1", Name: "lookup"})
	var joined string
	for _, d := range deltas {
		joined += d.ToolCallDelta.Arguments
	}
	equal(t, "joined arguments", joined, args)
	calls := ofKind(chunks, model.ChunkToolCall)
	equal(t, "streamed call", *calls[0].ToolCall, want.ToolCalls[0])
	equal(t, "response", resp, want)
}

func TestStreamInterruptedMidArgumentsHasNoCall(t *testing.T) {
	events := providerfake.OpenAIStreamEvents(response("resp_1", "completed", 9,
		providerfake.OpenAIFunctionCall("fc_1", "call_1", "lookup", "", `{"id":"r1"}`)))
	cutAt := -1
	for i, e := range events {
		if e.Name == "response.function_call_arguments.delta" {
			cutAt = i + 1 // after the first delta
			break
		}
	}
	if cutAt < 0 {
		t.Fatal("no arguments delta to cut after")
	}
	for name, answer := range map[string]providerfake.Answer{
		"connection dropped":       {Events: events[:cutAt], Cut: true},
		"body ended (no end)":      {Events: events[:cutAt]},
		"dropped before any event": {Events: []providerfake.Event{}, Cut: true},
	} {
		t.Run(name, func(t *testing.T) {
			_, c := newStreamProvider(t, answer)
			chunks, resp, err := streamAll(t, c, baseRequest())
			if !errors.Is(err, model.ErrStreamInterrupted) || resp != nil {
				t.Fatalf("err = %v, response %v: want an error wrapping ErrStreamInterrupted", err, resp)
			}
			t.Log(err)
			if len(answer.Events) == 0 {
				equal(t, "chunks", len(chunks), 0)
				return
			}
			equal(t, "chunks", kinds(chunks), []model.ChunkKind{model.ChunkToolCallDelta})
			if len(ofKind(chunks, model.ChunkToolCallDelta)) != 2 {
				t.Errorf("deltas = %+v, want the announcement and the first piece", chunks)
			}
		})
	}
}

func TestStreamRunsASearchRoundInTheMiddle(t *testing.T) {
	p, c := newStreamProvider(t,
		providerfake.OK(response("resp_1", "completed", 40,
			reasoningItem("rs_1"), providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))),
		providerfake.OK(response("resp_2", "completed", 30,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`))),
	)
	chunks, resp, err := streamAll(t, c, baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "chunks", kinds(chunks), []model.ChunkKind{
		model.ChunkUsage, model.ChunkSearch, model.ChunkToolCallDelta, model.ChunkToolCall, model.ChunkUsage})
	equal(t, "search", *ofKind(chunks, model.ChunkSearch)[0].Search, model.SearchRound{Query: "export csv", Found: []string{"start_export"}})
	checkChunks(t, chunks, resp)

	// The second request carries the tool the search loaded, in the
	// answer to the search call, and its budget is what the first round
	// left.
	outs := searchOutputs(p.Body(1))
	if len(outs) != 1 || len(outs[0]) != 1 || outs[0][0].(map[string]any)["name"] != "start_export" {
		t.Fatalf("second request's search outputs = %v", outs)
	}
	equal(t, "second input", inputTypes(p.Body(1)), []string{"message:user", "reasoning", "tool_search_call", "tool_search_output"})
	equal(t, "second max_output_tokens", p.Body(1)["max_output_tokens"], float64(960))
}

func TestStreamCloseCancelsTheRequest(t *testing.T) {
	events := providerfake.OpenAIStreamEvents(response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Record r1 is open.")))
	never := make(chan struct{})
	defer close(never)
	events[len(events)-1].Wait = never
	p, c := newStreamProvider(t, providerfake.Stream(events...))
	st, err := c.Stream(context.Background(), baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	if ch := recv(t, st); ch.Kind != model.ChunkText {
		t.Fatalf("first chunk %+v", ch)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	<-p.Gone(0) // the provider sees its client go away
	if _, err := st.Recv(); !errors.Is(err, model.ErrStreamClosed) {
		t.Fatalf("Recv after Close: %v", err)
	}
}

func TestStreamContextCancelCancelsTheRequest(t *testing.T) {
	events := providerfake.OpenAIStreamEvents(response("resp_1", "completed", 5, providerfake.OpenAIMessage("msg_1", "Record r1 is open.")))
	never := make(chan struct{})
	defer close(never)
	events[len(events)-1].Wait = never
	p, c := newStreamProvider(t, providerfake.Stream(events...))
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.Stream(ctx, baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recv(t, st)
	cancel()
	<-p.Gone(0)
	for {
		ch, err := st.Recv()
		if errors.Is(err, context.Canceled) {
			return
		}
		if err != nil || ch.Kind == model.ChunkDone {
			t.Fatalf("after cancel: %+v, %v; want an error wrapping context.Canceled", ch, err)
		}
	}
}

func TestStreamUsageAddsUpAcrossRounds(t *testing.T) {
	_, c := newStreamProvider(t,
		providerfake.OK(response("resp_1", "completed", 40, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))),
		providerfake.OK(response("resp_2", "completed", 40, providerfake.OpenAIToolSearchCall("tsc_2", "call_search_2", "trends statistics"))),
		providerfake.OK(response("resp_3", "completed", 20, providerfake.OpenAIMessage("msg_1", "Exporting, then analyzing."))),
	)
	chunks, resp, err := streamAll(t, c, baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	usages := ofKind(chunks, model.ChunkUsage)
	if len(usages) != 3 {
		t.Fatalf("%d usage chunks for 3 requests", len(usages))
	}
	for i, out := range []int{40, 40, 20} {
		equal(t, "usage of a request", *usages[i].Usage, model.Usage{InputTokens: 200, OutputTokens: out, CacheReadTokens: 50})
	}
	equal(t, "final usage", resp.Usage, model.Usage{InputTokens: 600, OutputTokens: 100, CacheReadTokens: 150})
	checkChunks(t, chunks, resp)
}
