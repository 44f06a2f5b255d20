package bedrock

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/quiver-go/quiver/internal/providerfake"
	"github.com/quiver-go/quiver/internal/streamtest"
	"github.com/quiver-go/quiver/model"
)

const streamPath = "/model/" + novaID + "/converse-stream"

// streamServer is a ConverseStream server (providerfake) and a client for
// it: model nova, no retries.
func streamServer(t *testing.T, answers ...providerfake.Answer) (*providerfake.Server, *Client) {
	t.Helper()
	s := providerfake.New(t, streamPath, answers...)
	c, err := New(WithAWSConfig(awsConfig()), WithBaseURL(s.URL()), WithModel(novaID), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// frames streams events as Bedrock's binary event stream.
func frames(events ...providerfake.Event) providerfake.Answer {
	return providerfake.Answer{Status: http.StatusOK, Events: events, Header: map[string]string{"Content-Type": providerfake.BedrockStreamContentType}}
}

func streamRequest() *model.Request {
	return &model.Request{
		System:   "You export tables.",
		Messages: []model.Message{model.UserMessage("Export orders to CSV")},
		Tools:    []model.ToolDefinition{{Name: "startExport", Description: "Export a table.", InputSchema: json.RawMessage(startExportSchema)}},
	}
}

// TestStreamDeliversTextInputDeltasTheCallUsageAndCompletesResponse
// streams the answer Complete reads from Converse: the request is
// Converse's, sent to converse-stream; text and tool input arrive in
// pieces, the call when its block stops, the usage from metadata; the
// final response is Complete's.
func TestStreamDeliversTextInputDeltasTheCallUsageAndCompletesResponse(t *testing.T) {
	answer := toolUse("tu_1", "startExport", `{"table":"orders","format":"csv","limit":1e3}`)
	f := newFake(t, ok(answer))
	want, err := f.client().Complete(ctx(t), streamRequest())
	if err != nil {
		t.Fatal(err)
	}
	s, c := streamServer(t, providerfake.OK(answer))
	st, err := c.Stream(ctx(t), streamRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	providerfake.AssertJSON(t, "the ConverseStream request", s.Request(0).Body, f.Requests()[0].Raw)
	var text, args string
	var deltas int
	var calls []model.ToolCall
	for i, ch := range got {
		switch ch.Kind {
		case model.ChunkText:
			text += ch.Text
		case model.ChunkToolCallDelta:
			if d := ch.ToolCallDelta; d.ID != "tu_1" || d.Name != "startExport" {
				t.Fatalf("chunk %d: delta %+v", i, d)
			}
			args += ch.ToolCallDelta.Arguments
			deltas++
		case model.ChunkToolCall:
			calls = append(calls, *ch.ToolCall)
		}
	}
	if text != "Let me look." || deltas < 3 || args != `{"table":"orders","format":"csv","limit":1e3}` {
		t.Fatalf("text %q, %d deltas joining into %s", text, deltas, args)
	}
	if !reflect.DeepEqual(calls, want.ToolCalls) {
		t.Fatalf("calls %+v, Complete returned %+v", calls, want.ToolCalls)
	}
	n := len(got)
	if got[n-2].Kind != model.ChunkUsage || *got[n-2].Usage != want.Usage || got[n-1].Kind != model.ChunkDone {
		t.Fatalf("chunks %v, want the usage %+v then the response", streamtest.Kinds(got), want.Usage)
	}
	if !reflect.DeepEqual(got[n-1].Response, want) {
		t.Fatalf("final response %+v\nComplete returned %+v", got[n-1].Response, want)
	}
}

// TestStreamTextArrivesBeforeTheAnswerEnds holds every frame after the
// first word.
func TestStreamTextArrivesBeforeTheAnswerEnds(t *testing.T) {
	events := providerfake.BedrockStreamEvents(reply("Export started for orders."))
	release := make(chan struct{})
	for i := 2; i < len(events); i++ { // 0 is messageStart, 1 the first word
		events[i].Wait = release
	}
	_, c := streamServer(t, frames(events...))
	st, err := c.Stream(ctx(t), streamRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	first, err := st.Recv()
	if err != nil || first.Kind != model.ChunkText || first.Text != "Export " {
		t.Fatalf("first chunk %+v, %v; want the first word while the rest is held", first, err)
	}
	close(release)
	rest, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	last := rest[len(rest)-1]
	if last.Kind != model.ChunkDone || last.Response.Text() != "Export started for orders." || last.Response.StopReason != model.StopEndTurn {
		t.Fatalf("last chunk %+v", last)
	}
	if u := last.Response.Usage; u != (model.Usage{InputTokens: 150, OutputTokens: 10, CacheReadTokens: 7, CacheWriteTokens: 3}) {
		t.Fatalf("usage %+v", u)
	}
}

// TestStreamCutMidInputIsInterruptedWithoutTheCall cuts the connection in
// the middle of a tool call's input — between frames, and inside a frame
// (which the SDK reads as the stream's end): no call, no response.
func TestStreamCutMidInputIsInterruptedWithoutTheCall(t *testing.T) {
	events := providerfake.BedrockStreamEvents(toolUse("tu_1", "startExport", `{"table":"orders","format":"csv"}`))
	var cut int // after the second input delta
	for i, n := 0, 0; i < len(events); i++ {
		if strings.Contains(string(events[i].Raw), `"toolUse":{"input"`) {
			if n++; n == 2 {
				cut = i + 1
				break
			}
		}
	}
	half := providerfake.Event{Raw: events[cut].Raw[:len(events[cut].Raw)/2]}
	for name, evs := range map[string][]providerfake.Event{
		"between frames": events[:cut],
		"inside a frame": append(append([]providerfake.Event(nil), events[:cut]...), half),
	} {
		t.Run(name, func(t *testing.T) {
			a := frames(evs...)
			a.Cut = true
			_, c := streamServer(t, a)
			st, err := c.Stream(ctx(t), streamRequest())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			got, err := streamtest.Drain(st)
			if !errors.Is(err, model.ErrStreamInterrupted) {
				t.Fatalf("err = %v, want ErrStreamInterrupted", err)
			}
			for _, ch := range got {
				if ch.Kind == model.ChunkToolCall || ch.Kind == model.ChunkDone {
					t.Fatalf("delivered %+v from a cut stream", ch)
				}
			}
			if len(got) == 0 || got[len(got)-1].Kind != model.ChunkToolCallDelta {
				t.Fatalf("chunks %v, want the input deltas that arrived", streamtest.Kinds(got))
			}
		})
	}
}

// TestStreamEndingWithoutMetadataIsInterrupted ends the events properly
// after messageStop but without the metadata event.
func TestStreamEndingWithoutMetadataIsInterrupted(t *testing.T) {
	events := providerfake.BedrockStreamEvents(reply("Done."))
	_, c := streamServer(t, frames(events[:len(events)-1]...))
	st, err := c.Stream(ctx(t), streamRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = streamtest.Drain(st)
	if !errors.Is(err, model.ErrStreamInterrupted) || !strings.Contains(err.Error(), "before metadata") {
		t.Fatalf("err = %v, want ErrStreamInterrupted naming the missing metadata", err)
	}
}

// TestStreamExceptionMidStreamIsAnInterruptedAPIError sends an exception
// frame after some text.
func TestStreamExceptionMidStreamIsAnInterruptedAPIError(t *testing.T) {
	events := providerfake.BedrockStreamEvents(reply("Export started."))
	_, c := streamServer(t, frames(events[0], events[1], providerfake.BedrockException("throttlingException", "Too many tokens, please wait.")))
	st, err := c.Stream(ctx(t), streamRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	var ae *APIError
	var te *types.ThrottlingException
	if !errors.Is(err, model.ErrStreamInterrupted) || !errors.As(err, &ae) || !errors.As(err, &te) || ae.Code != "ThrottlingException" {
		t.Fatalf("err = %v, want an interrupted stream with Bedrock's ThrottlingException", err)
	}
	if len(got) != 1 || got[0].Text != "Export " {
		t.Fatalf("chunks before the exception %+v", got)
	}
}

func TestStreamErrorStatusIsReturnedByStream(t *testing.T) {
	f := newFake(t, fails(http.StatusTooManyRequests, "ThrottlingException", "Rate exceeded"))
	_, err := f.client().Stream(ctx(t), streamRequest())
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusTooManyRequests || !ae.Temporary() || errors.Is(err, model.ErrStreamInterrupted) {
		t.Fatalf("err = %v, want a retryable *APIError", err)
	}
	if r := f.Requests(); len(r) != 1 || r[0].Path != streamPath {
		t.Fatalf("requests %+v, want one to %s", r, streamPath)
	}
}

func TestStreamRefusesDeferredToolsBeforeAnyRequest(t *testing.T) {
	f := newFake(t)
	req := streamRequest()
	req.Tools[0].Deferred = true
	if _, err := f.client().Stream(ctx(t), req); !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("err = %v", err)
	}
}

// TestStreamCloseCancelsTheRequest closes a stream whose server still
// holds frames: the server sees its client go away.
func TestStreamCloseCancelsTheRequest(t *testing.T) {
	events := providerfake.BedrockStreamEvents(reply("Export started for orders."))
	never := make(chan struct{})
	for i := 2; i < len(events); i++ {
		events[i].Wait = never
	}
	s, c := streamServer(t, frames(events...))
	st, err := c.Stream(ctx(t), streamRequest())
	if err != nil {
		t.Fatal(err)
	}
	if ch, err := st.Recv(); err != nil || ch.Text != "Export " {
		t.Fatalf("first chunk %+v, %v", ch, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Gone(0):
	case <-ctx(t).Done():
		t.Fatal("the server never saw the client go away after Close")
	}
	if _, err := st.Recv(); !errors.Is(err, model.ErrStreamClosed) {
		t.Fatalf("Recv after Close = %v, want ErrStreamClosed", err)
	}
}
