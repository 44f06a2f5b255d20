package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/model/tokencount"
)

func TestRecordsIndependentCopies(t *testing.T) {
	c := scripted.New(scripted.Reply("ok"))
	req := &model.Request{
		System: "sys",
		Messages: []model.Message{
			model.UserMessage("open sales"),
			{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: "c1", Name: "a", Content: json.RawMessage(`{"ok":true}`)}}}, Meta: map[string]json.RawMessage{"k": json.RawMessage(`1`)}},
		},
		Tools: []model.ToolDefinition{{Name: "a", Description: "A.", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
	wantJSON, _ := json.Marshal(req)
	complete(t, c, req)

	req.System = "changed"
	req.Messages[0].Parts[0].Text = "changed"
	req.Messages[1].Parts[0].ToolResult.Content[2] = 'X'
	req.Messages[1].Meta["k"][0] = '9'
	req.Tools[0].InputSchema[2] = 'X'
	req.Messages = append(req.Messages, model.UserMessage("more"))

	got := c.Requests()
	if len(got) != 1 {
		t.Fatalf("%d requests recorded", len(got))
	}
	if data, _ := json.Marshal(got[0]); string(data) != string(wantJSON) {
		t.Errorf("record changed by the caller:\n got %s\nwant %s", data, wantJSON)
	}
	got[0].Messages[0].Parts[0].Text = "mutated"
	got[0].Tools[0].InputSchema[0] = 'X'
	if data, _ := json.Marshal(c.Requests()[0]); string(data) != string(wantJSON) {
		t.Errorf("record changed through Requests():\n got %s", data)
	}
}

func TestExhausted(t *testing.T) {
	c := scripted.New(scripted.Reply("a"), scripted.Reply("b"))
	if c.Remaining() != 2 || c.Calls() != 0 {
		t.Fatalf("fresh client: Remaining %d, Calls %d", c.Remaining(), c.Calls())
	}
	complete(t, c, request("1"))
	complete(t, c, request("2"))
	_, err := c.Complete(context.Background(), request("3"))
	const want = "scripted: script exhausted after 2 responses; the run asked for another model response: add a step"
	if err == nil || err.Error() != want || !errors.Is(err, scripted.ErrScriptExhausted) {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if _, err := c.Stream(context.Background(), request("4")); !errors.Is(err, scripted.ErrScriptExhausted) {
		t.Errorf("Stream err = %v", err)
	}
	if c.Remaining() != 0 || c.Calls() != 4 || len(c.Requests()) != 4 {
		t.Errorf("Remaining %d, Calls %d, Requests %d; want 0, 4, 4", c.Remaining(), c.Calls(), len(c.Requests()))
	}
	if got := c.Requests()[2].Messages[0].TextContent(); got != "3" {
		t.Errorf("the request past the end is recorded as %q", got)
	}
}

func TestContextCancelled(t *testing.T) {
	c := scripted.New(scripted.Reply("a"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Complete(ctx, request("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Complete err = %v", err)
	}
	if _, err := c.Stream(ctx, request("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Stream err = %v", err)
	}
	if c.Calls() != 0 || c.Remaining() != 1 {
		t.Errorf("a refused request was recorded or consumed a step: Calls %d, Remaining %d", c.Calls(), c.Remaining())
	}
	if _, err := c.Complete(context.Background(), nil); err == nil {
		t.Error("no error for a nil request")
	}

	ctx, cancel = context.WithCancel(context.Background())
	s, err := c.Stream(ctx, request("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cancel()
	if _, err := s.Recv(); !errors.Is(err, context.Canceled) {
		t.Errorf("Recv after cancel err = %v", err)
	}
}

func TestStreamOrder(t *testing.T) {
	steps := []scripted.Step{scripted.Assistant("Opening both.",
		scripted.ToolCallSpec{Name: "openTable", Payload: `{"table":"sales"}`},
		scripted.ToolCallSpec{Name: "openTable", Payload: `{"table":"costs"}`},
	)}
	want := complete(t, scripted.New(steps...), request("open"))

	s, err := scripted.New(steps...).Stream(context.Background(), request("open"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []model.ChunkKind
	var done *model.Response
	for {
		ch, err := s.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, ch.Kind)
		switch ch.Kind {
		case model.ChunkText:
			if ch.Text != "Opening both." {
				t.Errorf("text chunk %q", ch.Text)
			}
		case model.ChunkToolCall:
			if i := len(kinds) - 2; !reflect.DeepEqual(*ch.ToolCall, want.ToolCalls[i]) {
				t.Errorf("tool call chunk %d = %+v, want %+v", i, *ch.ToolCall, want.ToolCalls[i])
			}
		case model.ChunkDone:
			done = ch.Response
		}
	}
	wantKinds := []model.ChunkKind{model.ChunkText, model.ChunkToolCall, model.ChunkToolCall, model.ChunkUsage, model.ChunkDone}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("chunks = %v, want %v", kinds, wantKinds)
	}
	if !reflect.DeepEqual(done, want) {
		t.Errorf("done response = %+v\nwant %+v", done, want)
	}
	if _, err := s.Recv(); err != io.EOF {
		t.Errorf("second Recv after done = %v, want io.EOF", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err == nil || err == io.EOF {
		t.Errorf("Recv after Close = %v, want an error", err)
	}
}

func TestStreamReplyAndFailure(t *testing.T) {
	boom := errors.New("boom")
	c := scripted.New(scripted.Reply("hi"), scripted.Fail(boom))
	s, err := c.Stream(context.Background(), request("a"))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := s.Recv()
	second, _ := s.Recv()
	third, _ := s.Recv()
	if first.Kind != model.ChunkText || second.Kind != model.ChunkUsage || third.Kind != model.ChunkDone || third.Response.Text() != "hi" || *second.Usage != third.Response.Usage {
		t.Errorf("chunks = %+v, %+v, %+v", first, second, third)
	}
	if _, err := c.Stream(context.Background(), request("b")); err != boom {
		t.Errorf("Stream of a Fail step = %v", err)
	}
}

func TestUsageCountsTools(t *testing.T) {
	bare := complete(t, scripted.New(scripted.Reply("ok")), request("hi"))
	withTools := request("hi")
	withTools.Tools = []model.ToolDefinition{{Name: "openTable", Description: "Open a table.", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	tooled := complete(t, scripted.New(scripted.Reply("ok")), withTools)
	if tooled.Usage.InputTokens <= bare.Usage.InputTokens || tooled.Usage.OutputTokens != bare.Usage.OutputTokens {
		t.Errorf("usage with tools %+v, without %+v", tooled.Usage, bare.Usage)
	}
}

func TestTokenCounter(t *testing.T) {
	var counter model.TokenCounter = scripted.New()
	msgs := []model.Message{model.UserMessage("hello world")}
	got, err := counter.CountTokens(context.Background(), "", msgs)
	if err != nil {
		t.Fatal(err)
	}
	direct, _ := tokencount.NewCounter()
	want, _ := direct.CountTokens(context.Background(), "", msgs)
	if got != want || got != 9 {
		t.Errorf("CountTokens = %d, want %d (9)", got, want)
	}
	if c := counter.(*scripted.Client); c.Calls() != 0 {
		t.Errorf("counting recorded %d requests", c.Calls())
	}
}

func TestConcurrentUse(t *testing.T) {
	const n = 40
	steps := make([]scripted.Step, n)
	for i := range steps {
		steps[i] = scripted.Call("ping", fmt.Sprintf(`{"n":%d}`, i))
	}
	c := scripted.New(steps...)
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		ids = map[string]bool{}
	)
	for i := range n {
		wg.Go(func() {
			var resp *model.Response
			var err error
			if i%2 == 0 {
				resp, err = c.Complete(context.Background(), request(fmt.Sprint(i)))
			} else {
				var s model.Streamer
				if s, err = c.Stream(context.Background(), request(fmt.Sprint(i))); err == nil {
					for ch, rerr := s.Recv(); rerr == nil; ch, rerr = s.Recv() {
						if ch.Kind == model.ChunkDone {
							resp = ch.Response
						}
					}
					s.Close()
				}
			}
			if err != nil {
				t.Error(err)
				return
			}
			_ = c.Requests()
			_ = c.Remaining() + c.Calls()
			mu.Lock()
			ids[resp.ToolCalls[0].ID] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(ids) != n || !ids["call_1"] || !ids[fmt.Sprintf("call_%d", n)] {
		t.Errorf("ids = %v, want call_1 … call_%d, each once", ids, n)
	}
	if c.Remaining() != 0 || c.Calls() != n {
		t.Errorf("Remaining %d, Calls %d", c.Remaining(), c.Calls())
	}
	if _, err := c.Complete(context.Background(), request("late")); !errors.Is(err, scripted.ErrScriptExhausted) {
		t.Errorf("after the script: %v", err)
	}
}

func TestSupportsSearchRefusesNativeModeUnlessAsked(t *testing.T) {
	native := model.SearchSettings{}
	portableMode := model.SearchSettings{Mode: model.SearchPortable}
	err := scripted.New().SupportsSearch(native)
	if !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("native, not opted in: err = %v, want ErrToolSearchUnsupported", err)
	}
	for _, fix := range []string{"WithNativeSearch", "portable.Wrap", "model.SearchPortable"} {
		if !strings.Contains(err.Error(), fix) {
			t.Errorf("native, not opted in: err = %v, want it to name %q", err, fix)
		}
	}
	c := scripted.New().WithNativeSearch()
	if err := c.SupportsSearch(native); err != nil {
		t.Fatalf("native, opted in: %v", err)
	}
	for name, c := range map[string]*scripted.Client{"plain": scripted.New(), "opted in": c} {
		err := c.SupportsSearch(portableMode)
		if !errors.Is(err, model.ErrToolSearchUnsupported) || !strings.Contains(err.Error(), "portable.Wrap") {
			t.Errorf("portable, %s: err = %v, want ErrToolSearchUnsupported naming portable.Wrap", name, err)
		}
	}
}

func TestWithNativeSearchReturnsTheClient(t *testing.T) {
	c := scripted.New(scripted.Reply("hi"))
	if got := c.WithNativeSearch(); got != c {
		t.Fatal("WithNativeSearch returned another client")
	}
}
