package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
)

// streamOf answers a stream request with the events of a message, the
// request-id header set.
func streamOf(events []providerfake.Event) providerfake.Answer {
	return providerfake.Answer{Status: http.StatusOK, Events: events, Header: requestID}
}

// collect reads a stream to its end: the chunks before ChunkDone, and the
// final response or the stream's error.
func collect(t *testing.T, c *anthropic.Client, req *model.Request) ([]model.Chunk, *model.Response, error) {
	t.Helper()
	s, err := c.Stream(context.Background(), req)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	var chunks []model.Chunk
	resp, err := model.Collect(s, func(ch model.Chunk) error {
		chunks = append(chunks, ch)
		return nil
	})
	return chunks, resp, err
}

// ofKind are the chunks of kind k.
func ofKind(chunks []model.Chunk, k model.ChunkKind) []model.Chunk {
	var out []model.Chunk
	for _, c := range chunks {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

// kinds lists the chunks' kinds.
func kinds(chunks []model.Chunk) []model.ChunkKind {
	out := make([]model.ChunkKind, len(chunks))
	for i, c := range chunks {
		out[i] = c.Kind
	}
	return out
}

// sameAsComplete fails unless resp, streamed, is what Complete returns for
// the same answers.
func sameAsComplete(t *testing.T, resp *model.Response, c func(*provider) *anthropic.Client, answers ...providerfake.Answer) {
	t.Helper()
	want, err := c(newProvider(t, answers...)).Complete(context.Background(), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if !reflect.DeepEqual(resp, want) {
		t.Fatalf("streamed response\n %+v\ndiffers from Complete's\n %+v", resp, want)
	}
}

// direct and clientSide are the adapters of the tests: hosted search, and
// the client-side search variant.
func direct(p *provider) *anthropic.Client     { return p.client() }
func clientSide(p *provider) *anthropic.Client { return clientSearch(p) }

func TestStreamTextArrivesBeforeTheResponseCompletes(t *testing.T) {
	events := providerfake.AnthropicStreamEvents(message("msg_t", "end_turn", 12, `{"type":"text","text":"The orders table has 42 rows."}`))
	release := make(chan struct{})
	last := len(events) - 1
	if events[last].Name != "message_stop" {
		t.Fatalf("the stream ends with %s", events[last].Name)
	}
	events[last].Wait = release
	p := newProvider(t, streamOf(events))
	s, err := p.client().Stream(context.Background(), request("How many orders?"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// message_stop is held: the text reaches us while the provider has
	// not finished.
	first, err := s.Recv()
	if err != nil || first.Kind != model.ChunkText || first.Text == "" {
		t.Fatalf("first chunk %+v, %v; want text", first, err)
	}
	if !strings.HasPrefix("The orders table has 42 rows.", first.Text) {
		t.Fatalf("first text %q", first.Text)
	}
	close(release)
	text := first.Text
	resp, err := model.Collect(s, func(c model.Chunk) error {
		if c.Kind == model.ChunkText {
			text += c.Text
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text != "The orders table has 42 rows." || resp.Text() != text || resp.StopReason != model.StopEndTurn {
		t.Fatalf("streamed %q, response %q (stop %q)", text, resp.Text(), resp.StopReason)
	}
	if string(field(t, p.Request(0).Body, "stream")) != "true" {
		t.Fatalf("the request does not ask for a stream: %s", p.Request(0).Body)
	}
}

func TestStreamToolUseMatchesComplete(t *testing.T) {
	answer := message("msg_c", "tool_use", 20, `{"type":"text","text":"Exporting."}`, exportUse)
	chunks, resp, err := collect(t, newProvider(t, ok(answer)).client(), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(chunks)[len(chunks)-2:], []model.ChunkKind{model.ChunkToolCall, model.ChunkUsage}; !reflect.DeepEqual(got, want) {
		t.Fatalf("the stream ends with %v, want %v", got, want)
	}
	var args string
	for i, c := range ofKind(chunks, model.ChunkToolCallDelta) {
		d := c.ToolCallDelta
		if d.ID != "toolu_01" || d.Name != "records_export" {
			t.Fatalf("delta %d = %+v", i, d)
		}
		if i == 0 && d.Arguments != "" {
			t.Fatalf("the announcing delta carries %q", d.Arguments)
		}
		args += d.Arguments
	}
	if args != `{"table":"orders","format":"csv"}` {
		t.Fatalf("deltas joined = %q", args)
	}
	calls := ofKind(chunks, model.ChunkToolCall)
	if len(calls) != 1 || len(resp.ToolCalls) != 1 || !reflect.DeepEqual(*calls[0].ToolCall, resp.ToolCalls[0]) {
		t.Fatalf("streamed calls %+v, response calls %+v", calls, resp.ToolCalls)
	}
	sameAsComplete(t, resp, direct, ok(answer))
}

func TestStreamCallWithoutInputDeltasCarriesItsInputInOneDelta(t *testing.T) {
	var events []providerfake.Event
	for _, e := range providerfake.AnthropicStreamEvents(message("msg_n", "tool_use", 5, `{"type":"tool_use","id":"toolu_n","name":"records_lookup","input":{},"caller":{"type":"direct"}}`)) {
		if !strings.Contains(e.Data, "input_json_delta") {
			events = append(events, e)
		}
	}
	chunks, resp, err := collect(t, newProvider(t, streamOf(events)).client(), request("Look something up."))
	if err != nil {
		t.Fatal(err)
	}
	deltas := ofKind(chunks, model.ChunkToolCallDelta)
	if len(deltas) != 2 || deltas[0].ToolCallDelta.Arguments != "" || deltas[1].ToolCallDelta.Arguments != "{}" {
		t.Fatalf("deltas %+v, want the announcement and the whole input", deltas)
	}
	if len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Payload) != "{}" {
		t.Fatalf("calls %+v", resp.ToolCalls)
	}
}

func TestStreamCutMidCallIsInterruptedWithoutTheCall(t *testing.T) {
	events := providerfake.AnthropicStreamEvents(message("msg_x", "tool_use", 20, `{"type":"text","text":"Exporting."}`, exportUse))
	// Keep the stream up to the call's second input piece.
	cut := 0
	for i, e := range events {
		if strings.Contains(e.Data, `"partial_json":"{\"table\"`) {
			cut = i + 1
		}
	}
	if cut == 0 {
		t.Fatal("no input piece to cut after")
	}
	p := newProvider(t, providerfake.Answer{Events: events[:cut], Cut: true})
	chunks, resp, err := collect(t, p.client(), request("Export the orders table as CSV."))
	if !errors.Is(err, model.ErrStreamInterrupted) || resp != nil {
		t.Fatalf("err = %v, response %+v; want ErrStreamInterrupted", err, resp)
	}
	if len(ofKind(chunks, model.ChunkToolCallDelta)) < 2 {
		t.Fatalf("chunks %v: the call's first pieces did not stream", kinds(chunks))
	}
	if calls := ofKind(chunks, model.ChunkToolCall); len(calls) != 0 {
		t.Fatalf("an unfinished call was delivered: %+v", calls[0].ToolCall)
	}
	if u := ofKind(chunks, model.ChunkUsage); len(u) != 0 {
		t.Fatalf("usage of an unfinished message: %+v", u[0].Usage)
	}
}

func TestStreamEndingWithoutMessageStopIsInterrupted(t *testing.T) {
	events := providerfake.AnthropicStreamEvents(message("msg_e", "end_turn", 5, `{"type":"text","text":"Done."}`))
	// The provider ends the response cleanly, but before message_stop.
	p := newProvider(t, streamOf(events[:len(events)-1]))
	_, resp, err := collect(t, p.client(), request("hi"))
	if !errors.Is(err, model.ErrStreamInterrupted) || resp != nil || !strings.Contains(err.Error(), "message_stop") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamErrorEventIsAnAPIError(t *testing.T) {
	events := providerfake.AnthropicStreamEvents(message("msg_o", "end_turn", 5, `{"type":"text","text":"Partial answer."}`))
	events = append(events[:4:4], providerfake.SSE("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	_, _, err := collect(t, newProvider(t, streamOf(events)).client(), request("hi"))
	var apiErr *anthropic.APIError
	if !errors.As(err, &apiErr) || apiErr.Type != "overloaded_error" || apiErr.Message != "Overloaded" || apiErr.RequestID != "req_test" {
		t.Fatalf("err = %v, want an *APIError overloaded_error", err)
	}
	if !apiErr.Temporary() {
		t.Fatal("an overloaded stream is not temporary")
	}
}

func TestStreamErrorStatusIsAnAPIError(t *testing.T) {
	p := newProvider(t, providerfake.Answer{Status: http.StatusBadRequest, Header: requestID,
		Body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}`})
	_, _, err := collect(t, p.client(), request("hi"))
	var apiErr *anthropic.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Type != "invalid_request_error" || apiErr.Temporary() {
		t.Fatalf("err = %v, want a lasting *APIError 400", err)
	}
}

func TestStreamRefusesBeforeSendingWhatCompleteRefuses(t *testing.T) {
	p := newProvider(t)
	req := request("hi")
	req.MaxTokens = 0
	if _, err := p.client().Stream(context.Background(), req); !errors.Is(err, anthropic.ErrMaxTokensRequired) {
		t.Fatalf("err = %v", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestStreamHostedSearch(t *testing.T) {
	chunks, resp, err := collect(t, newProvider(t, ok(hostedRound)).client(), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatal(err)
	}
	searches := ofKind(chunks, model.ChunkSearch)
	want := model.SearchRound{Query: "export records csv", Found: []string{"records_export"}}
	if len(searches) != 1 || !reflect.DeepEqual(*searches[0].Search, want) {
		t.Fatalf("searches %+v, want %+v", searches, want)
	}
	for _, c := range ofKind(chunks, model.ChunkToolCallDelta) {
		if c.ToolCallDelta.ID != "toolu_01" {
			t.Fatalf("a search call streamed as a call: %+v", c.ToolCallDelta)
		}
	}
	// The search is reported before the call it made possible.
	order := kinds(chunks)
	search, call := -1, -1
	for i, k := range order {
		if k == model.ChunkSearch && search < 0 {
			search = i
		}
		if k == model.ChunkToolCallDelta && call < 0 {
			call = i
		}
	}
	if search < 0 || call < 0 || search > call {
		t.Fatalf("chunks %v: the search does not come before the call", order)
	}
	sameAsComplete(t, resp, direct, ok(hostedRound))
}

func TestStreamHostedSearchErrorFailsLikeComplete(t *testing.T) {
	failed := message("msg_f", "end_turn", 5, searchUse, `{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_01","content":{"type":"tool_search_tool_result_error","error_code":"unavailable"}}`)
	chunks, _, err := collect(t, newProvider(t, ok(failed)).client(), request("Export the orders table as CSV."))
	var se *anthropic.SearchError
	if !errors.As(err, &se) || se.Code != anthropic.SearchUnavailable {
		t.Fatalf("err = %v, want a *SearchError", err)
	}
	if s := ofKind(chunks, model.ChunkSearch); len(s) != 0 {
		t.Fatalf("a failed search was reported: %+v", s[0].Search)
	}
}

func TestStreamClientSearchRound(t *testing.T) {
	answers := []providerfake.Answer{
		ok(message("msg_11", "tool_use", 30, `{"type":"text","text":"Searching."}`, searchCall("toolu_s1", "export records csv"))),
		ok(message("msg_12", "tool_use", 40, exportUse)),
	}
	p := newProvider(t, answers...)
	chunks, resp, err := collect(t, clientSearch(p), request("Export the orders table as CSV."))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ChunkKind{model.ChunkText, model.ChunkUsage, model.ChunkSearch, model.ChunkToolCallDelta}
	var got []model.ChunkKind
	for _, k := range kinds(chunks) {
		if len(got) == 0 || got[len(got)-1] != k {
			got = append(got, k)
		}
	}
	if !reflect.DeepEqual(got[:4], want) {
		t.Fatalf("chunks %v, want them to begin %v", got, want)
	}
	searches := ofKind(chunks, model.ChunkSearch)
	round := model.SearchRound{Query: "export records csv", Found: []string{"records_export"}}
	if len(searches) != 1 || !reflect.DeepEqual(*searches[0].Search, round) {
		t.Fatalf("searches %+v, want %+v", searches, round)
	}
	for _, c := range ofKind(chunks, model.ChunkToolCallDelta) {
		if c.ToolCallDelta.Name == "tool_search" {
			t.Fatalf("the search tool's call streamed as a call: %+v", c.ToolCallDelta)
		}
	}
	// The second request carries the discovered tool.
	providerfake.AssertJSON(t, "second request's messages", field(t, p.Request(1).Body, "messages"), `[
	    {"role":"user","content":[{"type":"text","text":"Export the orders table as CSV."}]},
	    {"role":"assistant","content":[{"type":"text","text":"Searching."},`+searchCall("toolu_s1", "export records csv")+`]},
	    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s1","content":[{"type":"tool_reference","tool_name":"records_export"}]}]}]`)
	sameAsComplete(t, resp, clientSide, answers...)
}

func TestStreamUsageChunksSumToTheResponseUsage(t *testing.T) {
	answers := []providerfake.Answer{
		ok(providerfake.AnthropicMessage("msg_21", "tool_use", providerfake.Usage{Input: 100, CacheRead: 60, Output: 10}, searchCall("toolu_s1", "export records csv"))),
		ok(providerfake.AnthropicMessage("msg_22", "tool_use", providerfake.Usage{Input: 130, CacheRead: 90, Output: 12}, searchCall("toolu_s2", "statistics over records"))),
		ok(providerfake.AnthropicMessage("msg_23", "tool_use", providerfake.Usage{Input: 170, CacheRead: 120, Output: 14}, exportUse)),
	}
	chunks, resp, err := collect(t, clientSearch(newProvider(t, answers...)), request("Export and analyze."))
	if err != nil {
		t.Fatal(err)
	}
	usages := ofKind(chunks, model.ChunkUsage)
	if len(usages) != 3 {
		t.Fatalf("%d usage chunks, want one per request", len(usages))
	}
	var sum model.Usage
	for _, u := range usages {
		sum = sum.Add(*u.Usage)
	}
	want := model.Usage{InputTokens: 400, CacheReadTokens: 270, OutputTokens: 36}
	if sum != want || resp.Usage != want {
		t.Fatalf("usage chunks sum to %+v, response %+v, want %+v", sum, resp.Usage, want)
	}
	if *usages[0].Usage != (model.Usage{InputTokens: 100, CacheReadTokens: 60, OutputTokens: 10}) {
		t.Fatalf("first request's usage %+v", *usages[0].Usage)
	}
	sameAsComplete(t, resp, clientSide, answers...)
}

// requestContexts is an HTTP transport that hands over the context of
// each request it sends: the request is canceled when it is done.
type requestContexts chan context.Context

func (rc requestContexts) RoundTrip(r *http.Request) (*http.Response, error) {
	rc <- r.Context()
	return http.DefaultTransport.RoundTrip(r)
}

// heldStream starts a stream whose provider sends text and then holds
// message_stop until the test ends, and returns it once the text has
// arrived, with the context of its HTTP request.
func heldStream(t *testing.T, ctx context.Context) (model.Streamer, context.Context) {
	t.Helper()
	events := providerfake.AnthropicStreamEvents(message("msg_h", "end_turn", 5, `{"type":"text","text":"A long answer."}`))
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	events[len(events)-1].Wait = never
	p := newProvider(t, streamOf(events))
	sent := make(requestContexts, 1)
	s, err := p.client(anthropic.WithHTTPClient(&http.Client{Transport: sent})).Stream(ctx, request("hi"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if c, err := s.Recv(); err != nil || c.Kind != model.ChunkText {
		t.Fatalf("first chunk %+v, %v", c, err)
	}
	return s, <-sent
}

// The provider's stream is held open: only canceling the request ends it.
// (providerfake's Gone would show the provider's side too, but its report
// races with the handler's return on a client that leaves mid-stream.)
func TestStreamCloseCancelsTheRequest(t *testing.T) {
	s, sent := heldStream(t, context.Background())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	<-sent.Done() // the HTTP request is canceled
	if _, err := s.Recv(); !errors.Is(err, model.ErrStreamClosed) {
		t.Fatalf("Recv after Close: %v", err)
	}
}

func TestStreamContextCancelCancelsTheRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s, sent := heldStream(t, ctx)
	cancel()
	<-sent.Done()
	for {
		c, err := s.Recv()
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			break
		}
		if c.Kind == model.ChunkDone {
			t.Fatal("a canceled stream completed")
		}
	}
}

func TestStreamToAProviderThatIsGoneFailsLikeComplete(t *testing.T) {
	p := newProvider(t)
	c := p.client()
	p.Close()
	_, _, err := collect(t, c, request("hi"))
	if err == nil || errors.Is(err, model.ErrStreamInterrupted) || !strings.HasPrefix(err.Error(), "anthropic: messages request: ") {
		t.Fatalf("err = %v, want the request's failure, as Complete reports it", err)
	}
	_, cerr := c.Complete(context.Background(), request("hi"))
	if cerr == nil || !strings.HasPrefix(cerr.Error(), "anthropic: messages request: ") {
		t.Fatalf("Complete: %v", cerr)
	}
}
