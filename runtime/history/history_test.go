package history_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime/history"
)

// fakeSummarizer is a test double for model.Client: it records requests and
// answers with a fixed summary or error.
type fakeSummarizer struct {
	summary string
	err     error
	reqs    []*model.Request
}

func (f *fakeSummarizer) Complete(_ context.Context, req *model.Request) (*model.Response, error) {
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return nil, f.err
	}
	return &model.Response{Messages: []model.Message{model.AssistantMessage(f.summary)}, StopReason: model.StopEndTurn}, nil
}

func (f *fakeSummarizer) Stream(context.Context, *model.Request) (model.Streamer, error) {
	return nil, errors.New("fake: no streaming")
}

// fakeCounter is a test double for model.TokenCounter: a message costs 1
// token plus the bytes of its text, payloads and contents; the system prompt
// costs its bytes.
type fakeCounter struct {
	err   error
	calls int
}

func (f *fakeCounter) CountTokens(_ context.Context, system string, msgs []model.Message) (int, error) {
	f.calls++
	if f.err != nil {
		return 0, f.err
	}
	return len(system) + weight(msgs...), nil
}

func weight(msgs ...model.Message) int {
	n := 0
	for _, m := range msgs {
		n++
		for _, p := range m.Parts {
			n += len(p.Text)
			if p.ToolCall != nil {
				n += len(p.ToolCall.Payload)
			}
			if p.ToolResult != nil {
				n += len(p.ToolResult.Content)
			}
		}
	}
	return n
}

func call(id, name, payload string) model.Message {
	return model.Message{Role: model.RoleAssistant, Parts: []model.Part{{Kind: model.PartToolCall, ToolCall: &model.ToolCall{ID: id, Name: name, Payload: json.RawMessage(payload)}}}}
}

func result(id, name, content string) model.Message {
	return model.Message{Role: model.RoleTool, Parts: []model.Part{{Kind: model.PartToolResult, ToolResult: &model.ToolResult{CallID: id, Name: name, Content: json.RawMessage(content)}}}}
}

func withMeta(m model.Message, key, value string) model.Message {
	m.Meta = map[string]json.RawMessage{key: json.RawMessage(value)}
	return m
}

// transcript returns a system prompt message and four turns; the second
// and fourth carry tool exchanges, the third's assistant message metadata.
func transcript() []model.Message {
	return []model.Message{
		model.SystemMessage("be brief"),
		model.UserMessage("hello"),
		model.AssistantMessage("hi"),
		model.UserMessage("find the report"),
		call("c1", "search_docs", `{"query":"report"}`),
		result("c1", "search_docs", `{"hits":["r-17"]}`),
		model.AssistantMessage("found r-17"),
		model.UserMessage("open it"),
		withMeta(model.AssistantMessage("opened"), "openai", `{"discovered":["docs.open"]}`),
		model.UserMessage("export it as csv"),
		call("c2", "export", `{"id":"r-17","format":"csv"}`),
		result("c2", "export", `{"url":"https://x/r-17.csv"}`),
	}
}

func TestSplitTurns(t *testing.T) {
	msgs := transcript()
	lead, turns := history.SplitTurns(msgs)
	if !reflect.DeepEqual(lead, msgs[:1]) {
		t.Errorf("lead = %v", lead)
	}
	sizes := []int{}
	for _, tr := range turns {
		sizes = append(sizes, len(tr))
	}
	if !reflect.DeepEqual(sizes, []int{2, 4, 2, 3}) {
		t.Errorf("turn sizes = %v, want [2 4 2 3]", sizes)
	}

	// A user message holding only tool results continues the turn; an
	// assistant greeting before the first user message is a turn of its own.
	odd := []model.Message{
		model.SystemMessage("a"), model.SystemMessage("b"),
		model.AssistantMessage("welcome"),
		model.UserMessage("go"),
		call("c1", "t", `{}`),
		{Role: model.RoleUser, Parts: result("c1", "t", `{}`).Parts},
	}
	lead, turns = history.SplitTurns(odd)
	if len(lead) != 2 || len(turns) != 2 || len(turns[0]) != 1 || len(turns[1]) != 3 {
		t.Errorf("lead %d, turns %v", len(lead), turns)
	}
	if lead, turns := history.SplitTurns(nil); lead != nil || turns != nil {
		t.Errorf("SplitTurns(nil) = %v, %v", lead, turns)
	}
}

func TestApplyWithoutPolicy(t *testing.T) {
	msgs := transcript()
	for _, p := range []*history.Policy{nil, {}} {
		out, compacted, err := history.Apply(context.Background(), p, "sys", msgs, nil, nil)
		if err != nil || compacted {
			t.Fatalf("Apply = %v, %v", compacted, err)
		}
		if !reflect.DeepEqual(out, msgs) {
			t.Fatalf("messages changed")
		}
		out[1].Parts[0].Text = "mutated"
		out[4].Parts[0].ToolCall.Payload[0] = '['
		if msgs[1].Parts[0].Text != "hello" || msgs[4].Parts[0].ToolCall.Payload[0] != '{' {
			t.Fatal("Apply returned messages sharing memory with its input")
		}
	}
}

func TestKeepRecentTurns(t *testing.T) {
	msgs := transcript()
	before := model.CloneMessages(msgs)
	out, compacted, err := history.Apply(context.Background(), &history.Policy{KeepRecentTurns: 2}, "", msgs, nil, nil)
	if err != nil || compacted {
		t.Fatalf("Apply = %v, %v", compacted, err)
	}
	want := append(model.CloneMessages(msgs[:1]), msgs[7:]...)
	if !reflect.DeepEqual(out, want) {
		t.Errorf("window:\n got %v\nwant %v", out, want)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Error("input mutated")
	}
	// The window keeps whole turns: the tool call and its result stay with
	// the user message that led to them.
	out, _, _ = history.Apply(context.Background(), &history.Policy{KeepRecentTurns: 3}, "", msgs, nil, nil)
	if !reflect.DeepEqual(out, append(model.CloneMessages(msgs[:1]), msgs[3:]...)) {
		t.Errorf("window of 3 = %v", out)
	}
	out, _, _ = history.Apply(context.Background(), &history.Policy{KeepRecentTurns: 10}, "", msgs, nil, nil)
	if !reflect.DeepEqual(out, msgs) {
		t.Errorf("window larger than the transcript changed it")
	}
}

func TestCompressAtTurns(t *testing.T) {
	msgs := transcript()
	before := model.CloneMessages(msgs)
	sum := &fakeSummarizer{summary: "The user asked for report r-17."}
	p := &history.Policy{Compression: &history.Compression{CompressAtTurns: 4, KeepMaxTurns: 2}}

	out, compacted, err := history.Apply(context.Background(), p, "be brief", msgs, sum, nil)
	if err != nil || !compacted {
		t.Fatalf("Apply = %v, %v", compacted, err)
	}
	if len(sum.reqs) != 1 {
		t.Fatalf("summarizer called %d times", len(sum.reqs))
	}
	req := sum.reqs[0]
	if req.System != history.SummarySystemPrompt || req.Class != model.ModelClassSmall || len(req.Messages) != 1 || req.Messages[0].Role != model.RoleUser {
		t.Errorf("summary request = %+v", req)
	}
	input := req.Messages[0].TextContent()
	for _, s := range []string{history.SummaryInstruction, "<conversation>", "[user]\nhello", "[tool call search_docs] {\"query\":\"report\"}", "[tool result search_docs] {\"hits\":[\"r-17\"]}"} {
		if !strings.Contains(input, s) {
			t.Errorf("summary input lacks %q:\n%s", s, input)
		}
	}
	if strings.Contains(input, "open it") {
		t.Errorf("summary input holds a kept turn:\n%s", input)
	}

	if len(out) != 1+1+5 {
		t.Fatalf("out has %d messages: %v", len(out), out)
	}
	summary := out[1]
	if summary.Role != model.RoleUser || summary.TextContent() != history.SummaryPrefix+"The user asked for report r-17." || !history.IsSummary(summary) {
		t.Errorf("summary message = %+v", summary)
	}
	if !reflect.DeepEqual(out[2:], msgs[7:]) || !reflect.DeepEqual(out[0], msgs[0]) {
		t.Errorf("kept messages differ")
	}
	if string(out[3].Meta["openai"]) != `{"discovered":["docs.open"]}` {
		t.Errorf("kept metadata lost: %v", out[3].Meta)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Error("input mutated")
	}

	// Below the trigger nothing happens. The summary is not a turn: with
	// one more turn the compacted transcript has three, one short of the
	// trigger.
	next := append(out, model.UserMessage("thanks"), model.AssistantMessage("welcome"))
	again, compacted, err := history.Apply(context.Background(), p, "", next, sum, nil)
	if err != nil || compacted || len(sum.reqs) != 1 || !reflect.DeepEqual(again, next) {
		t.Fatalf("below trigger: compacted=%v err=%v calls=%d", compacted, err, len(sum.reqs))
	}
	// At the trigger the earlier summary is folded into the new one.
	next = append(next, model.UserMessage("bye"))
	again, compacted, err = history.Apply(context.Background(), p, "", next, sum, nil)
	if err != nil || !compacted || len(sum.reqs) != 2 {
		t.Fatalf("second compression: compacted=%v err=%v calls=%d", compacted, err, len(sum.reqs))
	}
	if in := sum.reqs[1].Messages[0].TextContent(); !strings.Contains(in, "The user asked for report r-17.") || !strings.Contains(in, "export it as csv") {
		t.Errorf("second summary input:\n%s", in)
	}
	if len(again) != 1+1+3 || !history.IsSummary(again[1]) || again[2].TextContent() != "thanks" {
		t.Errorf("second compaction = %v", again)
	}
}

func TestCompressByTokens(t *testing.T) {
	msgs := transcript()
	_, turns := history.SplitTurns(msgs)
	last, prev := weight(turns[3]...), weight(turns[2]...)
	total := len("be brief") + weight(msgs...)
	sum := &fakeSummarizer{summary: "recap"}

	// Below the token trigger: no compression, one count.
	c := &fakeCounter{}
	p := &history.Policy{Compression: &history.Compression{CompressAtMaxInputTokens: total, KeepMaxInputTokens: last + prev}}
	out, compacted, err := history.Apply(context.Background(), p, "be brief", msgs, sum, c)
	if err != nil || compacted || c.calls != 1 || !reflect.DeepEqual(out, msgs) {
		t.Fatalf("below trigger: compacted=%v err=%v calls=%d", compacted, err, c.calls)
	}

	// Above it: the two last turns fit the retention budget exactly.
	p.Compression.CompressAtMaxInputTokens = total - 1
	out, compacted, err = history.Apply(context.Background(), p, "be brief", msgs, sum, c)
	if err != nil || !compacted {
		t.Fatalf("Apply = %v, %v", compacted, err)
	}
	if !reflect.DeepEqual(out[2:], msgs[7:]) {
		t.Errorf("kept %v", out[2:])
	}

	// With both retentions the fewer turns are kept.
	p.Compression.KeepMaxTurns = 1
	out, _, err = history.Apply(context.Background(), p, "be brief", msgs, sum, c)
	if err != nil || !reflect.DeepEqual(out[2:], msgs[9:]) {
		t.Errorf("both retentions kept %v (err %v)", out[2:], err)
	}
}

func TestCompressNeverSplitsTheCurrentTurn(t *testing.T) {
	msgs := transcript()
	sum := &fakeSummarizer{summary: "recap"}
	p := &history.Policy{Compression: &history.Compression{CompressAtTurns: 2, KeepMaxInputTokens: 1}}
	out, compacted, err := history.Apply(context.Background(), p, "", msgs, sum, &fakeCounter{})
	if err != nil || !compacted {
		t.Fatalf("Apply = %v, %v", compacted, err)
	}
	// The last turn alone exceeds the budget and is kept whole.
	if len(out) != 1+1+3 || !reflect.DeepEqual(out[2:], msgs[9:]) {
		t.Errorf("out = %v", out)
	}
}

func TestCompressNothingToSummarize(t *testing.T) {
	sum := &fakeSummarizer{summary: "recap"}
	p := &history.Policy{Compression: &history.Compression{CompressAtTurns: 2, KeepMaxTurns: 8}}
	msgs := transcript()
	out, compacted, err := history.Apply(context.Background(), p, "", msgs, sum, nil)
	if err != nil || compacted || len(sum.reqs) != 0 || !reflect.DeepEqual(out, msgs) {
		t.Fatalf("compacted=%v err=%v calls=%d", compacted, err, len(sum.reqs))
	}
}

func TestCompressErrors(t *testing.T) {
	ctx := context.Background()
	msgs := transcript()
	turnPolicy := &history.Policy{Compression: &history.Compression{CompressAtTurns: 2, KeepMaxTurns: 1}}
	tokenPolicy := &history.Policy{Compression: &history.Compression{CompressAtMaxInputTokens: 1, KeepMaxTurns: 1}}
	boom := errors.New("boom")

	if _, _, err := history.Apply(ctx, turnPolicy, "", msgs, &fakeSummarizer{err: boom}, nil); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "history: summarize 3 turns: ") {
		t.Errorf("summarizer error: %v", err)
	}
	if _, _, err := history.Apply(ctx, turnPolicy, "", msgs, &fakeSummarizer{summary: "  "}, nil); err == nil || !strings.Contains(err.Error(), "empty summary") {
		t.Errorf("empty summary: %v", err)
	}
	if _, _, err := history.Apply(ctx, tokenPolicy, "", msgs, &fakeSummarizer{summary: "x"}, &fakeCounter{err: boom}); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "history: count input tokens: ") {
		t.Errorf("counter error: %v", err)
	}
	if _, _, err := history.Apply(ctx, turnPolicy, "", msgs, nil, nil); err == nil || !strings.Contains(err.Error(), "needs a history model") {
		t.Errorf("missing summarizer: %v", err)
	}
	if _, _, err := history.Apply(ctx, tokenPolicy, "", msgs, &fakeSummarizer{summary: "x"}, nil); err == nil || !strings.Contains(err.Error(), "counts tokens exactly") {
		t.Errorf("missing counter: %v", err)
	}
}
