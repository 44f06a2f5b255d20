package model

import (
	"context"
	"errors"
	"io"
	"testing"
)

func TestResponseStreamDeliversTextCallsThenDone(t *testing.T) {
	call := ToolCall{ID: "c1", Name: "lookup", Payload: []byte(`{}`)}
	resp := &Response{Messages: []Message{{Role: RoleAssistant, Parts: []Part{Text("Looking."), {Kind: PartToolCall, ToolCall: &call}}}}, ToolCalls: []ToolCall{call}}
	s := ResponseStream(context.Background(), resp)
	var kinds []ChunkKind
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, c.Kind)
		if c.Kind == ChunkDone && c.Response != resp {
			t.Fatal("the done chunk does not carry the response")
		}
	}
	if len(kinds) != 3 || kinds[0] != ChunkText || kinds[1] != ChunkToolCall || kinds[2] != ChunkDone {
		// No usage chunk: the response reports none.
		t.Fatalf("chunks = %v", kinds)
	}
	_ = s.Close()
	if _, err := s.Recv(); !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("Recv after Close: %v", err)
	}
}

func TestResponseStreamStopsWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := ResponseStream(ctx, &Response{})
	cancel()
	if _, err := s.Recv(); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}
