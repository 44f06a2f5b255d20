package runtime

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime/history"
	"github.com/quiver-go/quiver/tools"
)

// searchlessModel declares nothing about search (model.SearchCapable), so
// it has no native search; it counts the requests it receives.
type searchlessModel struct{ requests *atomic.Int32 }

func (m searchlessModel) Complete(context.Context, *model.Request) (*model.Response, error) {
	m.requests.Add(1)
	return &model.Response{Messages: []model.Message{model.AssistantMessage("hi")}, StopReason: model.StopEndTurn}, nil
}

func (m searchlessModel) Stream(ctx context.Context, req *model.Request) (model.Streamer, error) {
	resp, err := m.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return model.ResponseStream(ctx, resp), nil
}

// deferringRuntime returns a runtime on opts with toolset ws (openTable,
// startExport) and the registration of an agent "a" deferring startExport
// under search.
func deferringRuntime(t *testing.T, search model.SearchSettings, opts ...Option) (*Runtime, AgentRegistration) {
	t.Helper()
	rt, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	specs := []tools.ToolSpec{newSpec(t, "openTable"), newSpec(t, "startExport")}
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "ws", Specs: specs, Executor: noopExecutor()}); err != nil {
		t.Fatal(err)
	}
	return rt, AgentRegistration{Name: "a", Planner: planner.NewStandard(), Uses: []ToolsetUse{{Toolset: "ws", Deferred: []string{"startExport"}}}, Search: search}
}

// checkSearchRefusal asserts that err refuses the agent's search, naming
// the deferred tool, the fix want and the last resort of deferring none.
func checkSearchRefusal(t *testing.T, err error, want string) {
	t.Helper()
	if !errors.Is(err, model.ErrToolSearchUnsupported) {
		t.Fatalf("err = %v, want ErrToolSearchUnsupported", err)
	}
	for _, w := range []string{"ws.startExport", want, "or defer none"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}

// TestRegisterAgentRefusesAModelThatCannotSearch: when the agent's client
// is known at registration, each way of deferring tools to a model that
// cannot search them fails RegisterAgent with the fix that applies, and no
// model request is made.
func TestRegisterAgentRefusesAModelThatCannotSearch(t *testing.T) {
	portableMode := model.SearchSettings{Mode: model.SearchPortable}
	for _, tc := range []struct {
		name   string
		search model.SearchSettings
		client func(requests *atomic.Int32) model.Client
		want   string
	}{
		{
			// The model would be told to call search_tools, which nothing
			// answers.
			name:   "portable mode without portable.Wrap",
			search: portableMode,
			client: func(*atomic.Int32) model.Client { return scripted.New() },
			want:   "needs the client wrapped with portable.Wrap",
		},
		{
			name:   "native mode on a client without native search",
			search: model.SearchSettings{},
			client: func(n *atomic.Int32) model.Client { return searchlessModel{n} },
			want:   "use an adapter with native search (model/openai, model/anthropic)",
		},
		{
			// A plain script declares no native search: without the
			// refusal, the run would end with the deferred call refused and
			// no search tool ever offered.
			name:   "native mode on a script not opted into native search",
			search: model.SearchSettings{},
			client: func(*atomic.Int32) model.Client { return scripted.New(scripted.Reply("never")) },
			want:   "call WithNativeSearch",
		},
		{
			name:   "native mode through portable.Wrap over a client without native search",
			search: model.SearchSettings{},
			client: func(n *atomic.Int32) model.Client { return portable.Wrap(searchlessModel{n}) },
			want:   "set Search.Mode to model.SearchPortable",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int32
			client := tc.client(&requests)
			rt, reg := deferringRuntime(t, tc.search, WithModel(model.ModelClassDefault, client))
			checkSearchRefusal(t, rt.RegisterAgent(reg), tc.want)
			if _, err := rt.agent("a"); err == nil {
				t.Error("the refused agent was registered")
			}
			if s, ok := client.(*scripted.Client); ok && s.Calls() != 0 || requests.Load() != 0 {
				t.Error("a model request was made")
			}
		})
	}
}

// TestRegisterAgentAcceptsAModelThatSearches: the three working set-ups.
func TestRegisterAgentAcceptsAModelThatSearches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		search model.SearchSettings
		client model.Client
		defer_ bool
	}{
		{"native mode on a native client", model.SearchSettings{}, scripted.New().WithNativeSearch(), true},
		{"portable mode through portable.Wrap", model.SearchSettings{Mode: model.SearchPortable}, portable.Wrap(searchlessModel{new(atomic.Int32)}), true},
		{"no deferred tools", model.SearchSettings{Mode: model.SearchPortable}, searchlessModel{new(atomic.Int32)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, reg := deferringRuntime(t, tc.search, WithModel(model.ModelClassDefault, tc.client))
			if !tc.defer_ {
				reg.Uses[0].Deferred = nil
			}
			if err := rt.RegisterAgent(reg); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestScriptedNativeSearchIsOptIn: an agent deferring tools to a plain
// script is refused at registration, the error naming both fixes (the
// opt-in and the portable wrapper); the same agent on a script opted in
// with WithNativeSearch registers and runs, the script driving admission.
func TestScriptedNativeSearchIsOptIn(t *testing.T) {
	plain := scripted.New(scripted.Reply("never"))
	rt, reg := deferringRuntime(t, model.SearchSettings{}, WithModel(model.ModelClassDefault, plain))
	err := rt.RegisterAgent(reg)
	checkSearchRefusal(t, err, "call WithNativeSearch")
	for _, fix := range []string{"portable.Wrap", "set Search.Mode to model.SearchPortable"} {
		if !strings.Contains(err.Error(), fix) {
			t.Errorf("error lacks the fix %q:\n%v", fix, err)
		}
	}
	if plain.Calls() != 0 {
		t.Error("a model request was made")
	}

	opted := scripted.New(scripted.Call("startExport", `{"q":"x"}`), scripted.Reply("Refused, as expected.")).WithNativeSearch()
	rt, reg = deferringRuntime(t, model.SearchSettings{}, WithModel(model.ModelClassDefault, opted))
	if err := rt.RegisterAgent(reg); err != nil {
		t.Fatalf("opted in: %v", err)
	}
	out, err := rt.Run(context.Background(), "a", RunInput{Messages: []model.Message{model.UserMessage("export")}})
	if err != nil || out.Final == nil || out.Final.Text != "Refused, as expected." {
		t.Fatalf("opted in: out = %+v, err = %v", out, err)
	}
	if res := toolResults(opted.Requests()[1].Messages); len(res) != 1 || !strings.Contains(string(res[0].Content), "Tool 'startExport' not in active set") {
		t.Fatalf("opted in: the model read %v, want the undiscovered call refused", res)
	}
}

// TestStartRefusesAModelThatCannotSearch: when the agent's client is not
// known at registration, Start makes the check — no model request made.
// Models are options of New today, so the test gives the runtime its
// client after the registration by hand, as a model registry would.
func TestStartRefusesAModelThatCannotSearch(t *testing.T) {
	rt, reg := deferringRuntime(t, model.SearchSettings{Mode: model.SearchPortable})
	if err := rt.RegisterAgent(reg); err != nil {
		t.Fatalf("registration with no model known: %v", err)
	}
	in := RunInput{Messages: []model.Message{model.UserMessage("export")}}
	ctx := context.Background()
	// No model at all: the search cannot be checked, the run cannot plan.
	if _, err := rt.Start(ctx, "a", in); err == nil || !strings.Contains(err.Error(), "no model registered") {
		t.Fatalf("Start without a model: err = %v", err)
	}
	setModel := func(c model.Client) {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		rt.models[model.ModelClassDefault] = c
	}
	unwrapped := scripted.New(scripted.Reply("never"))
	setModel(unwrapped)
	h, err := rt.Start(ctx, "a", in)
	if h != nil {
		t.Fatal("Start returned a handle: the run started")
	}
	checkSearchRefusal(t, err, "needs the client wrapped with portable.Wrap")
	if !strings.HasPrefix(err.Error(), `runtime: run of agent "a": `) {
		t.Errorf("err = %v, want it to name the agent", err)
	}
	if n := unwrapped.Calls(); n != 0 {
		t.Fatalf("%d model requests, want none", n)
	}
	wrapped := scripted.New(scripted.Reply("Exported."))
	setModel(portable.Wrap(wrapped))
	out, err := rt.Run(ctx, "a", in)
	if err != nil || out.Final == nil || out.Final.Text != "Exported." {
		t.Fatalf("wrapped: out = %+v, err = %v", out, err)
	}
}

// TestFailedRunNamesTheRunOnce: a run's error is prefixed with the run
// once, however deep the failure.
func TestFailedRunNamesTheRunOnce(t *testing.T) {
	boom := errors.New("rate limited")
	f := newFixture(t, RunPolicy{}, nil, scripted.Fail(boom))
	h, err := f.rt.Start(context.Background(), "assistant", RunInput{Messages: []model.Message{model.UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Wait(context.Background())
	// Activity errors cross the engine as text, as they would on Temporal.
	if err == nil || !strings.HasSuffix(err.Error(), boom.Error()) {
		t.Fatalf("err = %v, want the model's error", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "runtime: run "+h.RunID+": planning step 1: ") {
		t.Errorf("err = %q, want it to start with the run and its step", msg)
	}
	if n := strings.Count(msg, h.RunID); n != 1 {
		t.Errorf("the run id appears %d times in %q, want once", n, msg)
	}
	if n := strings.Count(msg, "runtime:"); n != 1 {
		t.Errorf("the runtime prefix appears %d times in %q, want once", n, msg)
	}
}

// TestRegisterToolsetTwiceWrapsErrToolsetRegistered: generated code tells
// a shared toolset from a failed registration with errors.Is.
func TestRegisterToolsetTwiceWrapsErrToolsetRegistered(t *testing.T) {
	rt, err := New()
	if err != nil {
		t.Fatal(err)
	}
	reg := ToolsetRegistration{Name: "ws", Specs: []tools.ToolSpec{newSpec(t, "open")}, Executor: noopExecutor()}
	if err := rt.RegisterToolset(reg); err != nil {
		t.Fatal(err)
	}
	err = rt.RegisterToolset(reg)
	if !errors.Is(err, ErrToolsetRegistered) || err.Error() != `runtime: toolset already registered: "ws"` {
		t.Fatalf("err = %v, want ErrToolsetRegistered naming ws", err)
	}
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "other"}); errors.Is(err, ErrToolsetRegistered) {
		t.Fatalf("an invalid registration reads as a shared one: %v", err)
	}
}

// TestFailedCompressionNamesTheRunOnce: an error of the history model
// crosses the planner (PrepareMessages) and still reads with one prefix.
func TestFailedCompressionNamesTheRunOnce(t *testing.T) {
	boom := errors.New("summarizer down")
	agent := AgentRegistration{
		HistoryModel: scripted.New(scripted.Fail(boom)),
		Policy:       RunPolicy{History: &history.Policy{Compression: &history.Compression{CompressAtTurns: 2, KeepMaxTurns: 1}}},
	}
	f := newFixtureWith(t, agent, nil, nil, scripted.Reply("a1"), scripted.Reply("never"))
	f.run("q1", WithRunID("r1"))
	_, err := f.rt.Run(context.Background(), "assistant", RunInput{SessionID: "r1", Messages: []model.Message{model.UserMessage("q2")}})
	if err == nil || !strings.Contains(err.Error(), boom.Error()) {
		t.Fatalf("err = %v, want the history model's error", err)
	}
	if n := strings.Count(err.Error(), "runtime:"); n != 1 {
		t.Errorf("the runtime prefix appears %d times in %q, want once", n, err)
	}
}
