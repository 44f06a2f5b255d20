package scripted_test

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/streamtest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
)

func hello() *model.Request {
	return &model.Request{Messages: []model.Message{model.UserMessage("How many orders per region?")}}
}

func TestWithStreamingDeliversWordsAndArgumentPiecesBeforeEachCall(t *testing.T) {
	step := scripted.Assistant("Let me look that up.",
		scripted.ToolCallSpec{Name: "runQuery", Payload: `{"sql":"select region, count(*) from orders group by region"}`},
		scripted.ToolCallSpec{ID: "mine", Name: "listTables"})
	want, err := scripted.New(step).Complete(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	st, err := scripted.New(step).WithStreaming().Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	args := map[string]string{}
	var calls []model.ToolCall
	var usage *model.Usage
	for i, c := range got {
		switch c.Kind {
		case model.ChunkText:
			if len(calls) > 0 || len(args) > 0 {
				t.Fatalf("chunk %d: text after the calls began", i)
			}
			text = append(text, c.Text)
		case model.ChunkToolCallDelta:
			d := c.ToolCallDelta
			if len(calls) > 0 && calls[len(calls)-1].ID == d.ID {
				t.Fatalf("chunk %d: a delta of %s after its call", i, d.ID)
			}
			if d.Name != map[string]string{"call_1": "runQuery", "mine": "listTables"}[d.ID] {
				t.Fatalf("chunk %d: delta %+v", i, d)
			}
			args[d.ID] += d.Arguments
		case model.ChunkToolCall:
			if _, announced := args[c.ToolCall.ID]; !announced {
				t.Fatalf("chunk %d: call %s without deltas before it", i, c.ToolCall.ID)
			}
			calls = append(calls, *c.ToolCall)
		case model.ChunkUsage:
			usage = c.Usage
		}
	}
	if len(text) < 2 || strings.Join(text, "") != "Let me look that up." {
		t.Fatalf("text pieces %q", text)
	}
	if !reflect.DeepEqual(calls, want.ToolCalls) {
		t.Fatalf("calls %+v, want %+v", calls, want.ToolCalls)
	}
	for _, tc := range want.ToolCalls {
		if args[tc.ID] != string(tc.Payload) {
			t.Fatalf("deltas of %s join into %q, want %s", tc.ID, args[tc.ID], tc.Payload)
		}
	}
	last := got[len(got)-1]
	if usage == nil || *usage != want.Usage || got[len(got)-2].Kind != model.ChunkUsage {
		t.Fatalf("usage chunk %v, want %+v just before the end", usage, want.Usage)
	}
	if last.Kind != model.ChunkDone || !reflect.DeepEqual(last.Response, want) {
		t.Fatalf("final chunk %+v, want the response Complete returns", last)
	}
}

func TestStreamWithoutWithStreamingIsOneChunkPerPart(t *testing.T) {
	st, err := scripted.New(scripted.Assistant("Let me look that up.", scripted.ToolCallSpec{Name: "runQuery", Payload: `{"sql":"select 1"}`})).Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	got, err := streamtest.Drain(st)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []model.ChunkKind
	for _, c := range got {
		kinds = append(kinds, c.Kind)
	}
	if want := []model.ChunkKind{model.ChunkText, model.ChunkToolCall, model.ChunkUsage, model.ChunkDone}; !reflect.DeepEqual(kinds, want) || got[0].Text != "Let me look that up." {
		t.Fatalf("chunks %v, want %v", kinds, want)
	}
}

// TestFailMidStreamStreamsTextThenFailsAndTheNextStepPlays is a
// dropped connection and its retry: the first stream delivers part of an
// answer and fails with ErrStreamInterrupted; the retried request gets the
// next step.
func TestFailMidStreamStreamsTextThenFailsAndTheNextStepPlays(t *testing.T) {
	c := scripted.New(scripted.FailMidStream("The orders are", model.ErrStreamInterrupted), scripted.Reply("The orders are in."))
	st, err := c.Stream(context.Background(), hello())
	if err != nil {
		t.Fatalf("Stream = %v, want the failure from Recv", err)
	}
	got, err := streamtest.Drain(st)
	if !errors.Is(err, model.ErrStreamInterrupted) || !strings.Contains(err.Error(), "step 1 FailMidStream") {
		t.Fatalf("err = %v, want ErrStreamInterrupted naming the step", err)
	}
	var text []string
	for _, c := range got {
		if c.Kind != model.ChunkText {
			t.Fatalf("chunk %+v before the failure, want only text", c)
		}
		text = append(text, c.Text)
	}
	if !reflect.DeepEqual(text, []string{"The ", "orders ", "are"}) {
		t.Fatalf("text pieces %q", text)
	}
	if _, err := st.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("Recv after the failure = %v, want io.EOF", err)
	}
	_ = st.Close()
	resp, err := model.Collect(mustStream(t, c), nil)
	if err != nil || resp.Text() != "The orders are in." {
		t.Fatalf("retry: %+v, %v", resp, err)
	}
}

func mustStream(t *testing.T, c *scripted.Client) model.Streamer {
	t.Helper()
	st, err := c.Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestFailMidStreamPlayedByCompleteReturnsItsError(t *testing.T) {
	boom := errors.New("connection reset")
	_, err := scripted.New(scripted.FailMidStream("partial", boom)).Complete(context.Background(), hello())
	if !errors.Is(err, boom) || errors.Is(err, model.ErrStreamInterrupted) {
		t.Fatalf("err = %v, want the step's error", err)
	}
}

func TestFailMidStreamWithoutAnErrorIsAConstructionError(t *testing.T) {
	s := scripted.FailMidStream("x", nil)
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "FailMidStream: nil error") {
		t.Fatalf("Err() = %v", err)
	}
	if _, err := scripted.New(s).Stream(context.Background(), hello()); err == nil {
		t.Fatal("playing it succeeded")
	}
}

func TestClosingAStreamingScriptStopsIt(t *testing.T) {
	st, err := scripted.New(scripted.Reply("one two three four")).WithStreaming().Stream(context.Background(), hello())
	if err != nil {
		t.Fatal(err)
	}
	if c, err := st.Recv(); err != nil || c.Text != "one " {
		t.Fatalf("first chunk %+v, %v", c, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); !errors.Is(err, model.ErrStreamClosed) {
		t.Fatalf("Recv after Close = %v", err)
	}
}
