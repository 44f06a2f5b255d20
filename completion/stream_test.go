package completion_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/completion"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
)

// heldClient streams what its produce function sends; Complete is never
// expected. It counts requests and records the last one.
type heldClient struct {
	produce model.Produce
	calls   int
	last    *model.Request
}

func (c *heldClient) Complete(context.Context, *model.Request) (*model.Response, error) {
	return nil, errors.New("heldClient: Complete called; the test streams")
}

func (c *heldClient) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	c.calls++
	c.last = req
	return model.NewStream(ctx, c.produce), nil
}

// gatedAnswer sends pieces one by one, each only once gate delivers, then
// waits on gate once more and returns a response holding the pieces
// joined, with the given stop reason.
func gatedAnswer(gate <-chan struct{}, stop model.StopReason, pieces ...string) model.Produce {
	return func(ctx context.Context, emit func(model.Chunk) error) (*model.Response, error) {
		for _, p := range pieces {
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if err := emit(model.Chunk{Kind: model.ChunkText, Text: p}); err != nil {
				return nil, err
			}
		}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &model.Response{Messages: []model.Message{model.AssistantMessage(strings.Join(pieces, ""))}, StopReason: stop}, nil
	}
}

func recvDelta(t *testing.T, s *completion.Streamer[report], want string) {
	t.Helper()
	c, err := s.Recv()
	if err != nil {
		t.Fatalf("Recv: %v, want delta %q", err, want)
	}
	if c.Type != completion.ChunkDelta || c.Delta != want {
		t.Fatalf("Recv = %+v, want %s %q", c, completion.ChunkDelta, want)
	}
}

func TestStreamDeltasArriveBeforeTheEndAndValueWaitsForIt(t *testing.T) {
	gate := make(chan struct{})
	client := &heldClient{produce: gatedAnswer(gate, model.StopEndTurn, `{"city":`, `"Paris","temp":4}`)}
	s, err := newReport().StreamComplete(context.Background(), client, userRequest())
	if err != nil {
		t.Fatalf("StreamComplete: %v", err)
	}
	defer s.Close()
	if client.last.StructuredOutput == nil || client.last.StructuredOutput.Name != "weather_report" {
		t.Fatalf("streamed request carries StructuredOutput %+v", client.last.StructuredOutput)
	}

	gate <- struct{}{}
	recvDelta(t, s, `{"city":`)
	if _, err := s.Value(); !errors.Is(err, completion.ErrNotComplete) {
		t.Fatalf("Value after the first delta: %v, want ErrNotComplete", err)
	}
	gate <- struct{}{}
	recvDelta(t, s, `"Paris","temp":4}`)
	// Every delta is in; the producer has not ended the stream yet.
	if _, err := s.Value(); !errors.Is(err, completion.ErrNotComplete) {
		t.Fatalf("Value after the last delta, before the end: %v, want ErrNotComplete", err)
	}
	close(gate)
	if _, err := s.Recv(); err != io.EOF {
		t.Fatalf("Recv at the end: %v, want io.EOF", err)
	}
	v, err := s.Value()
	if err != nil || v != (report{City: "Paris", Temp: 4}) {
		t.Fatalf("Value = %+v, %v", v, err)
	}
	if _, err := s.Recv(); err != io.EOF {
		t.Fatalf("Recv after the end: %v, want io.EOF again", err)
	}
	if client.calls != 1 {
		t.Fatalf("%d stream requests, want 1", client.calls)
	}
}

func TestStreamInvalidEndIsAContractErrorFromRecvAndValue(t *testing.T) {
	cases := []struct {
		name   string
		stop   model.StopReason
		pieces []string
		want   string
	}{
		{"schema violation", model.StopEndTurn, []string{`{"city":"Paris",`, `"temp":"hot"}`}, "temp:"},
		{"not JSON", model.StopEndTurn, []string{`Sunny`, ` and warm`}, "not one JSON document"},
		{"cut at max tokens", model.StopMaxTokens, []string{`{"city":"Par`}, "max_tokens"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gate := make(chan struct{})
			close(gate)
			client := &heldClient{produce: gatedAnswer(gate, tc.stop, tc.pieces...)}
			s, err := newReport().StreamComplete(context.Background(), client, userRequest())
			if err != nil {
				t.Fatalf("StreamComplete: %v", err)
			}
			defer s.Close()
			for _, p := range tc.pieces {
				recvDelta(t, s, p)
			}
			_, err = s.Recv()
			var ce *planner.OutputContractError
			if !errors.As(err, &ce) || ce.Recoverable() {
				t.Fatalf("Recv at the end: %v, want a non-recoverable *planner.OutputContractError", err)
			}
			if !strings.Contains(err.Error(), tc.want) || ce.Raw != strings.Join(tc.pieces, "") {
				t.Fatalf("contract error %q (raw %q) does not mention %q", err, ce.Raw, tc.want)
			}
			if _, again := s.Recv(); again != err {
				t.Fatalf("Recv after the end: %v, want the same error", again)
			}
			if _, verr := s.Value(); !errors.As(verr, &ce) {
				t.Fatalf("Value: %v, want the contract error", verr)
			}
			if client.calls != 1 {
				t.Fatalf("%d stream requests, want 1", client.calls)
			}
		})
	}
}

func TestStreamInterruptedPassesThrough(t *testing.T) {
	client := &heldClient{produce: func(_ context.Context, emit func(model.Chunk) error) (*model.Response, error) {
		if err := emit(model.Chunk{Kind: model.ChunkText, Text: `{"city":`}); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("provider: connection reset: %w", model.ErrStreamInterrupted)
	}}
	s, err := newReport().StreamComplete(context.Background(), client, userRequest())
	if err != nil {
		t.Fatalf("StreamComplete: %v", err)
	}
	defer s.Close()
	recvDelta(t, s, `{"city":`)
	_, err = s.Recv()
	if !errors.Is(err, model.ErrStreamInterrupted) {
		t.Fatalf("Recv: %v, want ErrStreamInterrupted", err)
	}
	var ce *planner.OutputContractError
	if errors.As(err, &ce) {
		t.Fatal("an interrupted stream became a contract error")
	}
	_, verr := s.Value()
	if !errors.Is(verr, completion.ErrNotComplete) || !errors.Is(verr, model.ErrStreamInterrupted) {
		t.Fatalf("Value: %v, want ErrNotComplete wrapping the interruption", verr)
	}
}

func TestStreamClosedBeforeItsEndHasNoValue(t *testing.T) {
	gate := make(chan struct{})
	client := &heldClient{produce: gatedAnswer(gate, model.StopEndTurn, `{"city":"Paris","temp":4}`)}
	s, err := newReport().StreamComplete(context.Background(), client, userRequest())
	if err != nil {
		t.Fatalf("StreamComplete: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.Value(); !errors.Is(err, completion.ErrNotComplete) {
		t.Fatalf("Value after Close: %v, want ErrNotComplete", err)
	}
	if _, err := s.Recv(); !errors.Is(err, model.ErrStreamClosed) {
		t.Fatalf("Recv after Close: %v, want ErrStreamClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestStreamWithScriptedClientAndToolCallAnswer(t *testing.T) {
	client := scripted.New(scripted.Assistant(`{"city":"Paris","temp":1}`, scripted.ToolCallSpec{Name: "get_weather"}))
	s, err := newReport().StreamComplete(context.Background(), client, userRequest())
	if err != nil {
		t.Fatalf("StreamComplete: %v", err)
	}
	defer s.Close()
	recvDelta(t, s, `{"city":"Paris","temp":1}`)
	_, err = s.Recv()
	var ce *planner.OutputContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "called get_weather") {
		t.Fatalf("Recv: %v, want a contract error naming the tool call", err)
	}
	if client.Calls() != 1 {
		t.Fatalf("%d requests, want 1", client.Calls())
	}
}

func TestStreamValidWithScriptedClient(t *testing.T) {
	client := scripted.New(scripted.Reply(`{"city":"Oslo","temp":-3}`))
	s, err := newReport().StreamComplete(context.Background(), client, userRequest())
	if err != nil {
		t.Fatalf("StreamComplete: %v", err)
	}
	defer s.Close()
	var text string
	for {
		c, err := s.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		text += c.Delta
	}
	if text != `{"city":"Oslo","temp":-3}` {
		t.Fatalf("deltas joined = %q", text)
	}
	if v, err := s.Value(); err != nil || v != (report{City: "Oslo", Temp: -3}) {
		t.Fatalf("Value = %+v, %v", v, err)
	}
	if reqs := client.Requests(); len(reqs) != 1 || reqs[0].StructuredOutput == nil {
		t.Fatalf("recorded requests %+v, want one with StructuredOutput", reqs)
	}
}
