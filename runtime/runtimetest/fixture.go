package runtimetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// runTimeout bounds one run or continuation of a test: generous, as a
// durable engine spends tens of milliseconds per workflow task.
const runTimeout = 30 * time.Second

// fixture is a runtime with one agent ("assistant") on the standard planner
// and a scripted model, one toolset ("ws") whose executor is a table of
// handlers, and a record of every executed call and of every event its
// subscriber saw. Tests read a run's events from the run log
// ([fixture.events]) unless they compare the two.
type fixture struct {
	t          *testing.T
	newEngine  NewEngine
	rt         *runtime.Runtime
	model      *scripted.Client
	mu         sync.Mutex
	subscribed []runtime.Event
	calls      []*runtime.ToolCall
}

// handler answers one tool's calls in a fixture.
type handler func(ctx context.Context, call *runtime.ToolCall) (*planner.ToolResult, error)

// fixtureTool is one tool of a fixture: its spec and handler.
type fixtureTool struct {
	spec    tools.ToolSpec
	handler handler
}

// newFixture registers the tools under toolset "ws" and the agent with
// policy, playing steps.
func newFixture(t *testing.T, newEngine NewEngine, policy runtime.RunPolicy, toolset []fixtureTool, steps ...scripted.Step) *fixture {
	t.Helper()
	return newFixtureWith(t, newEngine, runtime.AgentRegistration{Policy: policy}, nil, toolset, steps...)
}

// newFixtureWith is newFixture with a custom agent registration and runtime
// options.
func newFixtureWith(t *testing.T, newEngine NewEngine, agent runtime.AgentRegistration, opts []runtime.Option, toolset []fixtureTool, steps ...scripted.Step) *fixture {
	t.Helper()
	f := &fixture{t: t, newEngine: newEngine, model: scripted.New(steps...)}
	var client model.Client = f.model
	if agent.Search.Mode == model.SearchPortable {
		// Portable search needs the wrapper, as on any real client.
		client = portable.Wrap(f.model)
	} else {
		// Native search: the script plays a provider that searches, so
		// tests drive admission of deferred tools directly.
		f.model.WithNativeSearch()
	}
	f.setUp(agent, opts, toolset, client)
	return f
}

// setUp makes the fixture's runtime on client, with the toolset and the
// agent.
func (f *fixture) setUp(agent runtime.AgentRegistration, opts []runtime.Option, toolset []fixtureTool, client model.Client) {
	t := f.t
	t.Helper()
	rt, err := runtime.New(append([]runtime.Option{runtime.WithEngine(f.newEngine(t))}, append([]runtime.Option{runtime.WithModel(model.ModelClassDefault, client)}, opts...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	f.rt = rt
	rt.Subscribe(func(e runtime.Event) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.subscribed = append(f.subscribed, e)
	})
	handlers := map[tools.Ident]handler{}
	var specs []tools.ToolSpec
	for _, ft := range toolset {
		specs = append(specs, ft.spec)
		handlers[ft.spec.Name] = ft.handler
	}
	if len(specs) > 0 {
		err = rt.RegisterToolset(runtime.ToolsetRegistration{
			Name:  "ws",
			Specs: specs,
			Executor: runtime.ToolExecutorFunc(func(ctx context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
				f.mu.Lock()
				f.calls = append(f.calls, call)
				f.mu.Unlock()
				h := handlers[call.Ident]
				if h == nil {
					return &planner.ToolResult{Result: json.RawMessage(`{"ok":true}`)}, nil
				}
				return h(ctx, call)
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(agent.Uses, func(u runtime.ToolsetUse) bool { return u.Toolset == "ws" }) {
			agent.Uses = append(agent.Uses, runtime.ToolsetUse{Toolset: "ws"})
		}
	}
	if agent.Name == "" {
		agent.Name = "assistant"
	}
	if agent.Planner == nil {
		agent.Planner = planner.NewStandard()
	}
	if err := rt.RegisterAgent(agent); err != nil {
		t.Fatal(err)
	}
}

// run runs the agent on one user message and fails the test on error.
func (f *fixture) run(text string, opts ...runtime.RunOption) *runtime.RunOutput {
	f.t.Helper()
	return f.runAgent("assistant", text, opts...)
}

// runAgent runs agent on one user message and fails the test on error.
func (f *fixture) runAgent(agent, text string, opts ...runtime.RunOption) *runtime.RunOutput {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	out, err := f.rt.Run(ctx, agent, runtime.RunInput{Messages: []model.Message{model.UserMessage(text)}}, opts...)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// cont continues a suspended run and waits for it.
func (f *fixture) cont(runID string, resp runtime.PendingInputResponse) *runtime.RunOutput {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	h, err := f.rt.Continue(ctx, runID, resp)
	if err != nil {
		f.t.Fatal(err)
	}
	out, err := h.Wait(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// executed returns the idents of the executed calls, in order.
func (f *fixture) executed() []tools.Ident {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []tools.Ident
	for _, c := range f.calls {
		out = append(out, c.Ident)
	}
	return out
}

// events returns every event of the fixture's run log: run by run, the
// oldest first, each run's in order. Call it once the runs it reads have
// ended or suspended.
func (f *fixture) events() []runtime.Event {
	f.t.Helper()
	return logEvents(f.t, f.rt.RunLog())
}

// logEvents returns every event of log, run by run, the oldest first, each
// run's in order.
func logEvents(t testing.TB, log runtime.RunLog) []runtime.Event {
	t.Helper()
	ctx := context.Background()
	runs, err := log.Runs(ctx, runtime.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.SortRunsOldestFirst(runs)
	var out []runtime.Event
	for _, r := range runs {
		out = append(out, runEvents(t, log, r.RunID)...)
	}
	return out
}

// runEvents returns the events of one run in log, in order.
func runEvents(t testing.TB, log runtime.RunLog, runID string) []runtime.Event {
	t.Helper()
	recs, err := log.Read(context.Background(), runID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]runtime.Event, 0, len(recs))
	for _, rec := range recs {
		e, err := rec.Event()
		if err != nil {
			t.Fatalf("event %d of run %s: %v", rec.Seq, runID, err)
		}
		out = append(out, e)
	}
	return out
}

// eventsOf returns the events of one type in the fixture's run log.
func eventsOf[E runtime.Event](f *fixture) []E {
	f.t.Helper()
	var out []E
	for _, e := range f.events() {
		if v, ok := e.(E); ok {
			out = append(out, v)
		}
	}
	return out
}

// toolResults returns the tool results of a run's messages, in order.
func toolResults(msgs []model.Message) []model.ToolResult {
	var out []model.ToolResult
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				out = append(out, *p.ToolResult)
			}
		}
	}
	return out
}

// specOption adjusts a fixture spec.
type specOption func(*tools.ToolSpec)

// newSpec builds a valid spec ws.<name> with a payload schema (default: an
// object with an optional string "q") and options applied.
func newSpec(t *testing.T, name string, opts ...specOption) tools.ToolSpec {
	t.Helper()
	return capsSpec(t, "ws", name, opts...)
}

func mustType(t *testing.T, schema string) tools.TypeSpec {
	t.Helper()
	ts, err := tools.NewTypeSpec("", json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func withPayload(t *testing.T, schema string) specOption {
	return func(s *tools.ToolSpec) { s.Payload = mustType(t, schema) }
}

func bookkeeping() specOption { return func(s *tools.ToolSpec) { s.Bookkeeping = true } }

func terminal() specOption { return func(s *tools.ToolSpec) { s.TerminalRun = true } }

func withTags(tags ...string) specOption { return func(s *tools.ToolSpec) { s.Tags = tags } }

func ok(result string) handler {
	return func(context.Context, *runtime.ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{Result: json.RawMessage(result)}, nil
	}
}

// guarded is a value an executor, a model script or a planner sets and
// the test reads: activities may run on goroutines the race detector sees
// no ordering with.
type guarded[T any] struct {
	mu sync.Mutex
	v  T
}

func (g *guarded[T]) set(v T) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.v = v
}

func (g *guarded[T]) get() T {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.v
}

// uniqueRunID returns a run id starting with prefix that no other test's
// run has, also on an engine every test shares (a durable engine's
// workflow ids).
func uniqueRunID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// noopExecutor answers every call with an empty result.
func noopExecutor() runtime.ToolExecutor {
	return runtime.ToolExecutorFunc(func(context.Context, *runtime.ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{}, nil
	})
}
