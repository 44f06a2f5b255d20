package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
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
	p := providerfake.New(t, "/responses", answers...)
	c, err := New(WithBaseURL(p.URL()), WithAPIKey(testKey), WithHTTPClient(p.Client()), WithMaxRetries(0), WithModel("gpt-5.4"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		reqs := p.Requests()
		if len(reqs) != len(answers) {
			t.Errorf("provider received %d requests, want %d", len(reqs), len(answers))
		}
		for i, r := range reqs {
			if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
				t.Errorf("request %d: Authorization %q", i+1, got)
			}
			wholeBody(t, r.Body, true)
		}
	})
	return p, c
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
		"connection dropped":  {Events: events[:cutAt], Cut: true},
		"body ended (no end)": {Events: events[:cutAt]},
	} {
		t.Run(name, func(t *testing.T) {
			_, c := newStreamProvider(t, answer)
			chunks, resp, err := streamAll(t, c, baseRequest())
			if !errors.Is(err, model.ErrStreamInterrupted) || resp != nil {
				t.Fatalf("err = %v, response %v: want an error wrapping ErrStreamInterrupted", err, resp)
			}
			t.Log(err)
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

// parityScripts are provider answers for which Stream must return what
// Complete returns, each with the request it answers.
var parityScripts = []struct {
	name    string
	req     func() *model.Request
	answers []string
}{
	{"search then call", baseRequest, []string{
		response("resp_1", "completed", 40, reasoningItem("rs_1"), providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv")),
		response("resp_2", "completed", 30, providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`)),
	}},
	{"two searches, text and two calls", baseRequest, []string{
		response("resp_1", "completed", 40, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv")),
		response("resp_2", "completed", 40, providerfake.OpenAIToolSearchCall("tsc_2", "call_search_2", "trends statistics")),
		response("resp_3", "completed", 20, providerfake.OpenAIMessage("msg_1", "Exporting, then analyzing."),
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`),
			providerfake.OpenAIFunctionCall("fc_2", "call_2", "analyze", "analyze", `{}`)),
	}},
	{"no match and no query", baseRequest, []string{
		response("resp_1", "completed", 10, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "zebra giraffe")),
		response("resp_2", "completed", 10, `{"type":"tool_search_call","id":"tsc_2","call_id":"call_search_2","execution":"client","status":"completed","arguments":{}}`),
		response("resp_3", "completed", 10, providerfake.OpenAIMessage("msg_1", "Nothing fits.")),
	}},
	{"search and call at once", baseRequest, []string{
		response("resp_1", "completed", 30, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"),
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "lookup", "", `{"id":"r1"}`)),
	}},
	{"output budget spent", baseRequest, []string{
		response("resp_1", "completed", 990, providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv")),
	}},
	{"truncated by the provider", baseRequest, []string{
		response("resp_1", "incomplete", 1000, providerfake.OpenAIMessage("msg_1", "Partial")),
	}},
	{"forced deferred tool, checkpoints ignored", func() *model.Request {
		req := baseRequest()
		req.ToolChoice = model.ToolChoice{Mode: model.ToolChoiceTool, Name: "send_invoice"}
		req.Cache.AfterTools = true
		return req
	}, []string{
		response("resp_1", "completed", 9, providerfake.OpenAIFunctionCall("fc_1", "call_1", "send_invoice", "", `{"customer":"c1"}`)),
	}},
	{"refusal and arguments that are not JSON", baseRequest, []string{
		response("resp_1", "completed", 9,
			`{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"refusal","refusal":"I cannot export that."}]}`,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "lookup", "", `{"id": r1`)),
	}},
}

func TestStreamReturnsWhatCompleteReturns(t *testing.T) {
	for _, sc := range parityScripts {
		t.Run(sc.name, func(t *testing.T) {
			exchanges := make([]exchange, len(sc.answers))
			answers := make([]providerfake.Answer, len(sc.answers))
			for i, a := range sc.answers {
				exchanges[i] = exchange{body: a}
				answers[i] = providerfake.OK(a)
			}
			wp, whole := newProvider(t, exchanges...)
			want, err := whole.Complete(context.Background(), sc.req())
			if err != nil {
				t.Fatal(err)
			}
			sp, c := newStreamProvider(t, answers...)
			chunks, resp, err := streamAll(t, c, sc.req())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(resp, want) {
				got, _ := json.Marshal(resp)
				w, _ := json.Marshal(want)
				t.Errorf("streamed response differs from Complete's:\n got: %s\nwant: %s", got, w)
			}
			checkChunks(t, chunks, resp)
			// The same requests, asking for a stream.
			for i := range sc.answers {
				if got, w := wholeBody(t, sp.Request(i).Body, true), wp.Request(i).Body; !sameJSON(got, w) {
					t.Errorf("request %d differs from Complete's:\n got: %s\nwant: %s", i+1, got, w)
				}
			}
		})
	}
}

func TestStreamFailuresAreCompletesErrors(t *testing.T) {
	failed := strings.Replace(response("resp_1", "completed", 3), `"status":"completed","model":"gpt-5.4","error":null`,
		`"status":"failed","model":"gpt-5.4","error":{"code":"server_error","message":"The model crashed."}`, 1)
	const apiError = `{"error":{"message":"The model 'gpt-nope' does not exist.","type":"invalid_request_error","param":"model","code":"model_not_found"}}`

	t.Run("response.failed", func(t *testing.T) {
		_, whole := newProvider(t, exchange{body: failed})
		_, werr := whole.Complete(context.Background(), baseRequest())
		_, c := newStreamProvider(t, providerfake.OK(failed))
		_, _, err := streamAll(t, c, baseRequest())
		if !errors.Is(err, ErrResponseFailed) || werr == nil || err.Error() != werr.Error() {
			t.Fatalf("err = %v, want Complete's %v", err, werr)
		}
	})
	t.Run("error event", func(t *testing.T) {
		events := providerfake.OpenAIStreamEvents(response("resp_1", "completed", 3, providerfake.OpenAIMessage("msg_1", "Hello")))
		events = append(events[:3], providerfake.OpenAIStreamError(3, "server_error", "The server had an error."))
		_, c := newStreamProvider(t, providerfake.Stream(events...))
		_, _, err := streamAll(t, c, baseRequest())
		var se *StreamError
		if !errors.As(err, &se) || !errors.Is(err, ErrResponseFailed) {
			t.Fatalf("err = %v, want a *StreamError wrapping ErrResponseFailed", err)
		}
		equal(t, "stream error", *se, StreamError{Code: "server_error", Message: "The server had an error."})
	})
	t.Run("error object the SDK stops at", func(t *testing.T) {
		_, c := newStreamProvider(t, providerfake.Stream(
			providerfake.SSE("error", `{"type":"error","error":{"type":"server_error","code":"overloaded","message":"Try again later."}}`)))
		_, _, err := streamAll(t, c, baseRequest())
		var se *StreamError
		if !errors.As(err, &se) || se.Code != "overloaded" || se.Message != "Try again later." {
			t.Fatalf("err = %v, want a *StreamError", err)
		}
	})
	t.Run("HTTP error", func(t *testing.T) {
		_, c := newStreamProvider(t, providerfake.Answer{Status: http.StatusBadRequest, Body: apiError})
		_, _, err := streamAll(t, c, baseRequest())
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Code != "model_not_found" {
			t.Fatalf("err = %v, want an *APIError", err)
		}
	})
}

func TestStreamRefusesWhatCompleteRefusesBeforeSending(t *testing.T) {
	_, c := newStreamProvider(t)
	if _, err := c.Stream(context.Background(), nil); err == nil {
		t.Error("a nil request streamed")
	}
	req := baseRequest()
	req.MaxTokens = 0
	if _, err := c.Stream(context.Background(), req); !errors.Is(err, ErrMaxTokensRequired) {
		t.Errorf("err = %v, want ErrMaxTokensRequired", err)
	}
}

func TestBedrockStreams(t *testing.T) {
	_, c := newBedrock(t, 0,
		exchange{golden: "search_then_call_1", streamed: true, body: response("resp_1", "completed", 40,
			reasoningItem("rs_1"), providerfake.OpenAIToolSearchCall("tsc_1", "call_search_1", "export csv"))},
		exchange{golden: "search_then_call_2", streamed: true, body: response("resp_2", "completed", 30,
			providerfake.OpenAIFunctionCall("fc_1", "call_1", "start_export", "start_export", `{"format":"csv"}`))},
	)
	chunks, resp, err := streamAll(t, c, baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "chunks", kinds(chunks), []model.ChunkKind{
		model.ChunkUsage, model.ChunkSearch, model.ChunkToolCallDelta, model.ChunkToolCall, model.ChunkUsage})
	checkChunks(t, chunks, resp)
	equal(t, "tool calls", resp.ToolCalls, []model.ToolCall{{ID: "call_1", Name: "start_export", Payload: json.RawMessage(`{"format":"csv"}`)}})
}
