package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/history"
)

// histRun runs the fixture's agent on one user message in a session.
func histRun(t *testing.T, f *fixture, session string, msg model.Message) *RunOutput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := f.rt.Run(ctx, "assistant", RunInput{SessionID: session, Messages: []model.Message{msg}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != StatusCompleted {
		t.Fatalf("run = %+v", out)
	}
	return out
}

// histSession loads a session's stored transcript.
func histSession(t *testing.T, f *fixture, session string) []model.Message {
	t.Helper()
	s, err := f.rt.sessions.Load(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	return s.Messages
}

// histTexts returns the user and assistant texts of msgs, in order, with
// tool calls and results as "call:<name>" and "result:<name>".
func histTexts(msgs []model.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.ToolCall != nil:
				out = append(out, "call:"+p.ToolCall.Name)
			case p.ToolResult != nil:
				out = append(out, "result:"+p.ToolResult.Name)
			case p.Text != "":
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// histPlainClient is a history model that cannot count tokens.
type histPlainClient struct{ c *scripted.Client }

func (p histPlainClient) Complete(ctx context.Context, req *model.Request) (*model.Response, error) {
	return p.c.Complete(ctx, req)
}

func (p histPlainClient) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	return p.c.Stream(ctx, req)
}

func histEqual(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func TestKeepRecentTurns(t *testing.T) {
	policy := RunPolicy{History: &history.Policy{KeepRecentTurns: 2}}
	f := newFixture(t, policy, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":1}`)}},
		scripted.Reply("a1"),
		scripted.Call("lookup", `{"q":"two"}`), scripted.Reply("a2"),
		scripted.Call("lookup", `{"q":"three"}`), scripted.Reply("a3"),
	)
	histRun(t, f, "s", model.UserMessage("q1"))
	histRun(t, f, "s", model.UserMessage("q2"))
	histRun(t, f, "s", model.UserMessage("q3"))
	reqs := f.model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	// Run 2 still fits the window.
	histEqual(t, "run 2, step 1", histTexts(reqs[1].Messages), []string{"q1", "a1", "q2"})
	// Run 3: turn 2 is kept whole, with its tool call and result.
	histEqual(t, "run 3, step 1", histTexts(reqs[3].Messages), []string{"q2", "call:lookup", "result:lookup", "a2", "q3"})
	histEqual(t, "run 3, step 2", histTexts(reqs[4].Messages), []string{"q2", "call:lookup", "result:lookup", "a2", "q3", "call:lookup", "result:lookup"})
	// The window trims requests only: the session keeps every turn.
	histEqual(t, "stored session", histTexts(histSession(t, f, "s")), []string{
		"q1", "a1", "q2", "call:lookup", "result:lookup", "a2", "q3", "call:lookup", "result:lookup", "a3",
	})
}

func TestCompressAtTurns(t *testing.T) {
	hm := scripted.New(scripted.Reply("S1: the user asked q1 and q2."))
	agent := AgentRegistration{
		HistoryModel: hm,
		Policy:       RunPolicy{History: &history.Policy{Compression: &history.Compression{CompressAtTurns: 3, KeepMaxTurns: 1}}},
	}
	f := newFixtureWith(t, agent, nil, []fixtureTool{{spec: newSpec(t, "lookup"), handler: ok(`{"rows":1}`)}},
		scripted.Reply("a1"),
		scripted.Reply("a2"),
		scripted.Call("lookup", `{}`), scripted.Reply("a3"),
		scripted.Reply("a4"),
	)
	histRun(t, f, "s", model.UserMessage("q1"))
	histRun(t, f, "s", model.UserMessage("q2"))
	if hm.Calls() != 0 {
		t.Fatalf("summarized before the trigger: %d calls", hm.Calls())
	}
	out3 := histRun(t, f, "s", model.UserMessage("q3"))
	hreqs := hm.Requests()
	if len(hreqs) != 1 {
		t.Fatalf("history model got %d requests, want 1 (once, not on every step)", len(hreqs))
	}
	summaryReq := histTexts(hreqs[0].Messages)
	if len(summaryReq) != 1 || !strings.Contains(summaryReq[0], "q1") || !strings.Contains(summaryReq[0], "a2") || strings.Contains(summaryReq[0], "q3") {
		t.Errorf("summarization request = %q: want turns 1 and 2, not the kept turn", summaryReq)
	}
	if hreqs[0].Class != model.ModelClassSmall {
		t.Errorf("summarization class = %q", hreqs[0].Class)
	}
	summary := history.SummaryPrefix + "S1: the user asked q1 and q2."
	reqs := f.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	histEqual(t, "run 3, step 1", histTexts(reqs[2].Messages), []string{summary, "q3"})
	histEqual(t, "run 3, step 2", histTexts(reqs[3].Messages), []string{summary, "q3", "call:lookup", "result:lookup"})
	histEqual(t, "stored session", histTexts(histSession(t, f, "s")), []string{summary, "q3", "call:lookup", "result:lookup", "a3"})
	// The run's own messages are still reported whole.
	histEqual(t, "run 3 messages", histTexts(out3.Messages), []string{"q3", "call:lookup", "result:lookup", "a3"})
	// Run 4: two turns after the summary, below the trigger.
	histRun(t, f, "s", model.UserMessage("q4"))
	if hm.Calls() != 1 {
		t.Errorf("history model called again: %d calls", hm.Calls())
	}
	histEqual(t, "run 4", histTexts(f.model.Requests()[4].Messages), []string{summary, "q3", "call:lookup", "result:lookup", "a3", "q4"})
}

func TestCompressAtMaxInputTokens(t *testing.T) {
	// Each user message is a few hundred tokens; replies are a word.
	long := func(word string) string { return strings.Repeat(word+" ", 300) }
	hm := scripted.New(scripted.Reply("S: two long questions."))
	const trigger, keep = 800, 500
	agent := AgentRegistration{
		HistoryModel: hm,
		Policy: RunPolicy{History: &history.Policy{Compression: &history.Compression{
			CompressAtMaxInputTokens: trigger,
			KeepMaxInputTokens:       keep,
		}}},
	}
	f := newFixtureWith(t, agent, nil, nil, scripted.Reply("a1"), scripted.Reply("a2"), scripted.Reply("a3"))
	histRun(t, f, "s", model.UserMessage(long("alpha")))
	histRun(t, f, "s", model.UserMessage(long("beta")))
	// Check the test's assumptions with the history model's own counter.
	ctx := context.Background()
	two, err := hm.CountTokens(ctx, "", histSession(t, f, "s"))
	if err != nil {
		t.Fatal(err)
	}
	three, _ := hm.CountTokens(ctx, "", append(histSession(t, f, "s"), model.UserMessage(long("gamma"))))
	one, _ := hm.CountTokens(ctx, "", []model.Message{model.UserMessage(long("gamma"))})
	pair, _ := hm.CountTokens(ctx, "", []model.Message{model.AssistantMessage("a2"), model.UserMessage(long("beta")), model.UserMessage(long("gamma"))})
	if !(two <= trigger && three > trigger && one <= keep && pair > keep) {
		t.Fatalf("token assumptions do not hold: two turns %d, three %d (trigger %d); last turn %d, last two %d (keep %d)", two, three, trigger, one, pair, keep)
	}
	if hm.Calls() != 0 {
		t.Fatalf("summarized below the token trigger")
	}
	histRun(t, f, "s", model.UserMessage(long("gamma")))
	if hm.Calls() != 1 {
		t.Fatalf("history model got %d requests, want 1", hm.Calls())
	}
	reqs := f.model.Requests()
	got := histTexts(reqs[2].Messages)
	if len(got) != 2 || got[0] != history.SummaryPrefix+"S: two long questions." || !strings.HasPrefix(got[1], "gamma") {
		t.Errorf("run 3 request = %q: want the summary and the last turn only", got)
	}
	stored := histSession(t, f, "s")
	if len(stored) != 3 || !history.IsSummary(stored[0]) {
		t.Errorf("stored session = %q", histTexts(stored))
	}
}

func TestHistoryMetaSurvivesStorageAndCompaction(t *testing.T) {
	meta := func(v string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"provider.x": json.RawMessage(`{"block":"` + v + `"}`)}
	}
	reply := func(text, m string) scripted.Step {
		msg := model.AssistantMessage(text)
		msg.Meta = meta(m)
		return scripted.Respond(&model.Response{Messages: []model.Message{msg}, StopReason: model.StopEndTurn})
	}
	user := func(text, m string) model.Message {
		msg := model.UserMessage(text)
		msg.Meta = meta(m)
		return msg
	}
	hm := scripted.New(scripted.Reply("S"))
	agent := AgentRegistration{
		HistoryModel: hm,
		Policy:       RunPolicy{History: &history.Policy{Compression: &history.Compression{CompressAtTurns: 3, KeepMaxTurns: 2}}},
	}
	f := newFixtureWith(t, agent, nil, nil, reply("a1", "m1"), reply("a2", "m2"), reply("a3", "m3"))
	histRun(t, f, "s", user("q1", "u1"))
	histRun(t, f, "s", user("q2", "u2"))
	metaOf := func(msgs []model.Message) map[string]string {
		out := map[string]string{}
		for _, m := range msgs {
			out[m.TextContent()] = string(m.Meta["provider.x"])
		}
		return out
	}
	check := func(what string, msgs []model.Message, want map[string]string) {
		t.Helper()
		got := metaOf(msgs)
		for text, w := range want {
			if got[text] != w {
				t.Errorf("%s: meta of %q = %s, want %s", what, text, got[text], w)
			}
		}
	}
	// Storage: run 2's request carries run 1's messages with their metadata.
	check("run 2 request", f.model.Requests()[1].Messages, map[string]string{"q1": `{"block":"u1"}`, "a1": `{"block":"m1"}`})
	histRun(t, f, "s", user("q3", "u3"))
	if hm.Calls() != 1 {
		t.Fatalf("history model got %d requests", hm.Calls())
	}
	// Compaction: turn 1 is summarized, turns 2 and 3 kept with their metadata.
	req := f.model.Requests()[2].Messages
	histEqual(t, "run 3 request", histTexts(req), []string{history.SummaryPrefix + "S", "q2", "a2", "q3"})
	check("run 3 request", req, map[string]string{"q2": `{"block":"u2"}`, "a2": `{"block":"m2"}`, "q3": `{"block":"u3"}`})
	stored := histSession(t, f, "s")
	check("stored session", stored, map[string]string{"q2": `{"block":"u2"}`, "a2": `{"block":"m2"}`, "q3": `{"block":"u3"}`, "a3": `{"block":"m3"}`})
	for _, m := range stored {
		if _, ok := m.Meta["provider.x"]; ok && (m.TextContent() == "q1" || m.TextContent() == "a1" || history.IsSummary(m)) {
			t.Errorf("metadata of a summarized message survived: %+v", m)
		}
	}
}

func TestCompressionNeedsHistoryModel(t *testing.T) {
	rt, err := New(WithModel(model.ModelClassDefault, scripted.New()))
	if err != nil {
		t.Fatal(err)
	}
	turns := &history.Compression{CompressAtTurns: 4, KeepMaxTurns: 2}
	err = rt.RegisterAgent(AgentRegistration{Name: "no_model", Planner: planner.NewStandard(), Policy: RunPolicy{History: &history.Policy{Compression: turns}}})
	if err == nil || !strings.Contains(err.Error(), "HistoryModel") {
		t.Errorf("compression without a history model: err = %v", err)
	}
	err = rt.RegisterAgent(AgentRegistration{Name: "with_model", Planner: planner.NewStandard(), HistoryModel: histPlainClient{scripted.New()}, Policy: RunPolicy{History: &history.Policy{Compression: turns}}})
	if err != nil {
		t.Errorf("turn-based compression with a history model: %v", err)
	}
	err = rt.RegisterAgent(AgentRegistration{Name: "window", Planner: planner.NewStandard(), Policy: RunPolicy{History: &history.Policy{KeepRecentTurns: 3}}})
	if err != nil {
		t.Errorf("a sliding window needs no history model: %v", err)
	}
}

func TestCompressionTokenSettingsNeedTokenCounter(t *testing.T) {
	rt, err := New(WithModel(model.ModelClassDefault, scripted.New()))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*history.Compression{
		"trigger":   {CompressAtMaxInputTokens: 1000, KeepMaxTurns: 2},
		"retention": {CompressAtTurns: 4, KeepMaxInputTokens: 500},
	} {
		reg := AgentRegistration{Name: "plain_" + name, Planner: planner.NewStandard(), HistoryModel: histPlainClient{scripted.New()}, Policy: RunPolicy{History: &history.Policy{Compression: c}}}
		if err := rt.RegisterAgent(reg); err == nil || !strings.Contains(err.Error(), "TokenCounter") {
			t.Errorf("%s: a history model that cannot count tokens: err = %v", name, err)
		}
		reg.Name = "counting_" + name
		reg.HistoryModel = scripted.New()
		if err := rt.RegisterAgent(reg); err != nil {
			t.Errorf("%s: a counting history model: %v", name, err)
		}
	}
}
