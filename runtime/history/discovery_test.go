package history_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime/history"
	"github.com/quiver-go/quiver/tools"
)

// discovered returns m with discovery record d.
func discovered(m model.Message, d model.Discovery) model.Message {
	m = m.Clone()
	m.SetDiscovery(d)
	return m
}

// discoveryTranscript returns a system message and four turns whose
// searches discovered tools: turn 1 found b and a (two searches), turn 2 a
// again and c (one search, then exhaustion), turn 3 nothing, and the
// current turn d (one search).
func discoveryTranscript() []model.Message {
	return []model.Message{
		model.SystemMessage("be brief"),
		model.UserMessage("export orders"),
		discovered(call("c1", "b", `{}`), model.Discovery{Tools: []tools.Ident{"ws.b", "ws.a"}, Searches: 2}),
		result("c1", "b", `{"ok":true}`),
		model.AssistantMessage("exported"),
		model.UserMessage("and the stats"),
		discovered(model.AssistantMessage("searched"), model.Discovery{Tools: []tools.Ident{"ws.a", "ws.c"}, Searches: 1, Exhausted: true}),
		model.UserMessage("thanks"),
		model.AssistantMessage("welcome"),
		model.UserMessage("export invoices"),
		discovered(call("c2", "d", `{}`), model.Discovery{Tools: []tools.Ident{"ws.d"}, Searches: 1}),
		result("c2", "d", `{"ok":true}`),
	}
}

// budget is what the current turn's search budget reads from msgs.
type budget struct {
	searches  int
	exhausted bool
	start     string
}

func budgetOf(msgs []model.Message) budget {
	return budget{model.SearchesThisTurn(msgs), model.SearchExhaustedThisTurn(msgs), msgs[model.TurnStart(msgs)].TextContent()}
}

func TestCompressionCarriesDiscoveries(t *testing.T) {
	msgs := discoveryTranscript()
	before := model.CloneMessages(msgs)
	sum := &fakeSummarizer{summary: "recap"}
	p := &history.Policy{Compression: &history.Compression{CompressAtTurns: 4, KeepMaxTurns: 1}}

	out, compacted, err := history.Apply(context.Background(), p, "", msgs, sum, nil)
	if err != nil || !compacted {
		t.Fatalf("Apply = %v, %v", compacted, err)
	}
	if len(out) != 1+1+3 || !history.IsSummary(out[1]) {
		t.Fatalf("out = %v", out)
	}
	// One record of tools only: the union of turns 1-3, sorted, no repeats.
	d, ok := out[1].Discovery()
	want := model.Discovery{Tools: []tools.Ident{"ws.a", "ws.b", "ws.c"}}
	if !ok || !reflect.DeepEqual(d, want) {
		t.Errorf("summary record = %+v (%v), want %+v", d, ok, want)
	}
	if got := string(out[1].Meta[model.DiscoveryMetaKey]); got != `{"tools":["ws.a","ws.b","ws.c"]}` {
		t.Errorf("summary record encodes as %s", got)
	}
	// The kept turn is verbatim, and the transcript admits the same tools.
	if !reflect.DeepEqual(out[2:], msgs[9:]) {
		t.Errorf("kept turn changed: %v", out[2:])
	}
	if got, want := model.DiscoveredTools(out), model.DiscoveredTools(msgs); !slices.Equal(got, want) {
		t.Errorf("discovered after compression %v, before %v", got, want)
	}
	// The budget of the current turn is unchanged, and the summary is not
	// taken for its start.
	if got, want := budgetOf(out), budgetOf(msgs); got != want || got.start != "export invoices" {
		t.Errorf("budget after compression %+v, before %+v", got, want)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Error("input mutated")
	}

	// A later compression folds the summary in: its tools carry over, with
	// the new turns', still once each.
	next := append(out,
		model.AssistantMessage("done"),
		model.UserMessage("open the stats"),
		discovered(model.AssistantMessage("found"), model.Discovery{Tools: []tools.Ident{"ws.e", "ws.b"}, Searches: 1}),
		model.UserMessage("bye"),
		model.UserMessage("really"),
	)
	again, compacted, err := history.Apply(context.Background(), p, "", next, sum, nil)
	if err != nil || !compacted {
		t.Fatalf("second Apply = %v, %v", compacted, err)
	}
	d, _ = again[1].Discovery()
	if want := (model.Discovery{Tools: []tools.Ident{"ws.a", "ws.b", "ws.c", "ws.d", "ws.e"}}); !history.IsSummary(again[1]) || !reflect.DeepEqual(d, want) {
		t.Errorf("second summary record = %+v, want %+v", d, want)
	}
	if got := budgetOf(again); got != (budget{start: "really"}) {
		t.Errorf("budget after the second compression = %+v", got)
	}
}

func TestCompressionWithoutDiscoveriesAddsNoRecord(t *testing.T) {
	sum := &fakeSummarizer{summary: "recap"}
	p := &history.Policy{Compression: &history.Compression{CompressAtTurns: 2, KeepMaxTurns: 1}}
	out, compacted, err := history.Apply(context.Background(), p, "", transcript(), sum, nil)
	if err != nil || !compacted {
		t.Fatalf("Apply = %v, %v", compacted, err)
	}
	if _, ok := out[1].Discovery(); ok || len(out[1].Meta) != 1 {
		t.Errorf("summary metadata = %v, want the summary mark only", out[1].Meta)
	}
}

func TestWindowCarriesDiscoveries(t *testing.T) {
	msgs := discoveryTranscript()
	// The first message the window keeps already holds a record, beside
	// other metadata.
	msgs[7] = discovered(msgs[7], model.Discovery{Tools: []tools.Ident{"ws.c", "ws.z"}, Searches: 1})
	msgs[7].Meta["provider.x"] = json.RawMessage(`{"block":1}`)
	before := model.CloneMessages(msgs)

	out, compacted, err := history.Apply(context.Background(), &history.Policy{KeepRecentTurns: 2}, "", msgs, nil, nil)
	if err != nil || compacted {
		t.Fatalf("Apply = %v, %v", compacted, err)
	}
	if len(out) != 1+2+3 || out[1].TextContent() != "thanks" {
		t.Fatalf("out = %v", out)
	}
	// Tools only are added, after the record's own; its searches stay.
	d, _ := out[1].Discovery()
	want := model.Discovery{Tools: []tools.Ident{"ws.c", "ws.z", "ws.a", "ws.b"}, Searches: 1}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("first kept message's record = %+v, want %+v", d, want)
	}
	if string(out[1].Meta["provider.x"]) != `{"block":1}` || len(out[1].Meta) != 2 {
		t.Errorf("first kept message's other metadata = %v", out[1].Meta)
	}
	if !reflect.DeepEqual(out[2:], msgs[8:]) || !reflect.DeepEqual(out[0], msgs[0]) {
		t.Error("other kept messages changed")
	}
	if got, want := model.DiscoveredTools(out), model.DiscoveredTools(msgs); !slices.Equal(got, want) {
		t.Errorf("discovered in the request %v, in the transcript %v", got, want)
	}
	if got, want := budgetOf(out), budgetOf(msgs); got != want {
		t.Errorf("budget in the request %+v, in the transcript %+v", got, want)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Error("input mutated")
	}

	// The current turn alone: its first message gets a record, and the
	// turn's own search still counts once.
	out, _, _ = history.Apply(context.Background(), &history.Policy{KeepRecentTurns: 1}, "", msgs, nil, nil)
	d, _ = out[1].Discovery()
	if want := (model.Discovery{Tools: []tools.Ident{"ws.a", "ws.b", "ws.c", "ws.z"}}); out[1].TextContent() != "export invoices" || !reflect.DeepEqual(d, want) {
		t.Errorf("window of 1: first message %q, record %+v, want %+v", out[1].TextContent(), d, want)
	}
	if got := budgetOf(out); got != (budget{searches: 1, start: "export invoices"}) {
		t.Errorf("window of 1: budget %+v", got)
	}

	// A record already listing every dropped tool is left verbatim.
	msgs = discoveryTranscript()
	msgs[7].Meta = map[string]json.RawMessage{model.DiscoveryMetaKey: json.RawMessage(`{"tools":["ws.c", "ws.b", "ws.a"]}`)}
	out, _, _ = history.Apply(context.Background(), &history.Policy{KeepRecentTurns: 2}, "", msgs, nil, nil)
	if !reflect.DeepEqual(out[1], msgs[7]) {
		t.Errorf("a complete record was rewritten: %s", out[1].Meta[model.DiscoveryMetaKey])
	}
}

func TestClarificationAnswerContinuesItsTurn(t *testing.T) {
	answer := model.UserMessage("the orders table")
	answer.Meta = map[string]json.RawMessage{model.ContinuesTurnMetaKey: json.RawMessage(`true`)}
	msgs := []model.Message{
		model.UserMessage("hello"),
		model.AssistantMessage("hi"),
		model.UserMessage("export a table"),
		discovered(model.AssistantMessage("which table?"), model.Discovery{Tools: []tools.Ident{"ws.a"}, Searches: 1}),
		answer,
		model.AssistantMessage("exporting"),
	}
	_, turns := history.SplitTurns(msgs)
	if len(turns) != 2 || len(turns[1]) != 4 {
		t.Fatalf("turns = %v: want the answer in the turn that asked", turns)
	}
	// Compression keeps the whole current turn, question and answer, and
	// its search still counts.
	sum := &fakeSummarizer{summary: "recap"}
	p := &history.Policy{Compression: &history.Compression{CompressAtTurns: 2, KeepMaxTurns: 1}}
	out, compacted, err := history.Apply(context.Background(), p, "", msgs, sum, nil)
	if err != nil || !compacted {
		t.Fatalf("Apply = %v, %v", compacted, err)
	}
	if !reflect.DeepEqual(out[1:], msgs[2:]) {
		t.Errorf("kept %v", out[1:])
	}
	if got := budgetOf(out); got != (budget{searches: 1, start: "export a table"}) {
		t.Errorf("budget %+v", got)
	}
}
