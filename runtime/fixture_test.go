package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/tools"
)

// The rules of a run an engine could break are tested in
// runtime/runtimetest, on every engine. The tests of this package need
// something that suite must not: the runtime's internals, a fake workflow
// clock (inmem.WithClock), a wrapped in-memory engine, or no engine at
// all (registration, pure helpers, stores); each test that stays here
// for one of those reasons, and could be mistaken for an engine rule,
// says which.

// fixture is a runtime with one agent ("assistant") on the standard planner
// and a scripted model, one toolset ("ws") whose executor is a table of
// handlers, and a record of every event and executed call.
type fixture struct {
	t      *testing.T
	rt     *Runtime
	model  *scripted.Client
	mu     sync.Mutex
	events []Event
	calls  []*ToolCall
}

// handler answers one tool's calls in a fixture.
type handler func(ctx context.Context, call *ToolCall) (*planner.ToolResult, error)

// fixtureTool is one tool of a fixture: its spec and handler.
type fixtureTool struct {
	spec    tools.ToolSpec
	handler handler
}

// newFixture registers the tools under toolset "ws" and the agent with
// policy, playing steps.
func newFixture(t *testing.T, policy RunPolicy, toolset []fixtureTool, steps ...scripted.Step) *fixture {
	t.Helper()
	return newFixtureWith(t, AgentRegistration{Policy: policy}, nil, toolset, steps...)
}

// newFixtureWith is newFixture with a custom agent registration and runtime
// options.
func newFixtureWith(t *testing.T, agent AgentRegistration, opts []Option, toolset []fixtureTool, steps ...scripted.Step) *fixture {
	t.Helper()
	f := &fixture{t: t, model: scripted.New(steps...)}
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

// newFixtureOn is newFixtureWith on the model client given (f.model is
// nil).
func newFixtureOn(t *testing.T, agent AgentRegistration, toolset []fixtureTool, client model.Client) *fixture {
	t.Helper()
	f := &fixture{t: t}
	f.setUp(agent, nil, toolset, client)
	return f
}

// setUp makes the fixture's runtime on client, with the toolset and the
// agent.
func (f *fixture) setUp(agent AgentRegistration, opts []Option, toolset []fixtureTool, client model.Client) {
	t := f.t
	t.Helper()
	rt, err := New(append([]Option{WithModel(model.ModelClassDefault, client)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	f.rt = rt
	rt.Subscribe(func(e Event) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.events = append(f.events, e)
	})
	handlers := map[tools.Ident]handler{}
	var specs []tools.ToolSpec
	for _, ft := range toolset {
		specs = append(specs, ft.spec)
		handlers[ft.spec.Name] = ft.handler
	}
	if len(specs) > 0 {
		err = rt.RegisterToolset(ToolsetRegistration{
			Name:  "ws",
			Specs: specs,
			Executor: ToolExecutorFunc(func(ctx context.Context, call *ToolCall) (*planner.ToolResult, error) {
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
		if !slices.ContainsFunc(agent.Uses, func(u ToolsetUse) bool { return u.Toolset == "ws" }) {
			agent.Uses = append(agent.Uses, ToolsetUse{Toolset: "ws"})
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
func (f *fixture) run(text string, opts ...RunOption) *RunOutput {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := f.rt.Run(ctx, "assistant", RunInput{Messages: []model.Message{model.UserMessage(text)}}, opts...)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// cont continues a suspended run and waits for it.
func (f *fixture) cont(runID string, resp PendingInputResponse) *RunOutput {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
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

// eventsOf returns the recorded events of one type.
func eventsOf[E Event](f *fixture) []E {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []E
	for _, e := range f.events {
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

func ok(result string) handler {
	return func(context.Context, *ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{Result: json.RawMessage(result)}, nil
	}
}

// withBounds declares a bounded result.
func withBounds(b tools.BoundsSpec) specOption {
	return func(s *tools.ToolSpec) { s.Bounds = &b }
}
