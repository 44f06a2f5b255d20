package bedrock

import (
	"errors"
	"io"
	"testing"

	"github.com/quiver-go/quiver/model"
)

// TestResponseMapping: text and tool calls in order, usage with cache
// counts, stop reasons, and the ignored cache checkpoints.
func TestResponseMapping(t *testing.T) {
	f := newFake(t, ok(toolUse("tu_9", "listTables", `{"n":1.50}`)), ok(reply("Three tables.")))
	c := f.client()
	req := &model.Request{Messages: []model.Message{model.UserMessage("hi")}, Cache: model.CacheCheckpoints{AfterSystem: true}}
	resp, err := c.Complete(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != model.StopToolUse || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "tu_9" || resp.ToolCalls[0].Name != "listTables" || string(resp.ToolCalls[0].Payload) != `{"n":1.50}` {
		t.Fatalf("resp = %+v", resp)
	}
	if parts := resp.Messages[0].Parts; len(parts) != 2 || parts[0].Text != "Let me look." || parts[1].ToolCall.ID != "tu_9" {
		t.Fatalf("parts = %+v", parts)
	}
	if resp.Usage != (model.Usage{InputTokens: 100, OutputTokens: 20}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if len(resp.IgnoredCheckpoints) != 1 || resp.IgnoredCheckpoints[0] != model.CheckpointAfterSystem {
		t.Errorf("ignored checkpoints = %v", resp.IgnoredCheckpoints)
	}

	st, err := c.Stream(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var done *model.Response
	for {
		ch, err := st.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ch.Kind == model.ChunkDone {
			done = ch.Response
		}
	}
	if done == nil || done.Text() != "Three tables." || done.StopReason != model.StopEndTurn || done.Usage != (model.Usage{InputTokens: 150, OutputTokens: 10, CacheReadTokens: 7, CacheWriteTokens: 3}) {
		t.Fatalf("streamed response = %+v", done)
	}
}

// TestStopsWithoutAnswerAreErrors: a guardrail stop is ErrStopped.
func TestStopsWithoutAnswerAreErrors(t *testing.T) {
	f := newFake(t, ok(`{"output":{"message":{"role":"assistant","content":[{"text":"blocked"}]}},"stopReason":"guardrail_intervened","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`))
	_, err := f.client().Complete(ctx(t), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v, want ErrStopped", err)
	}
}
