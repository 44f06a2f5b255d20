package runtimetest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/tools"
)

// agentsEnv is a runtime with a parent agent ("parent", model
// "parent-model") that uses the agent toolset "specialist.tools" (tool
// "ask", {"question"} → {"summary"}) of the agent "specialist" (model
// "child-model"), which uses the toolset "desk" (tools given per test).
type agentsEnv struct {
	t      *testing.T
	rt     *runtime.Runtime
	parent *scripted.Client
	child  *scripted.Client
	mu     sync.Mutex
	runs   map[tools.Ident]int
}

// agentsOptions tune newAgentsEnv.
type agentsOptions struct {
	parentPolicy, childPolicy runtime.RunPolicy
	// desk are the specialist's own tools, with their handlers.
	desk []fixtureTool
	// opts are more runtime options.
	opts []runtime.Option
	// childAgent is the agent specialist.tools runs ("specialist" when
	// empty); extra agents registered on the runtime, each with its own
	// model id "<name>-model".
	childAgent string
	extra      map[string]*scripted.Client
}

// askSpec is specialist.tools.ask, the exported tool.
func askSpec(t *testing.T) tools.ToolSpec {
	return capsSpec(t, "specialist.tools", "ask", func(s *tools.ToolSpec) {
		s.Payload = mustType(t, `{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`)
		s.Result = mustType(t, `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}`)
	})
}

func newAgentsEnv(t *testing.T, newEngine NewEngine, o agentsOptions, parentSteps, childSteps []scripted.Step) *agentsEnv {
	t.Helper()
	e := &agentsEnv{t: t, parent: scripted.New(parentSteps...), child: scripted.New(childSteps...), runs: map[tools.Ident]int{}}
	opts := append([]runtime.Option{runtime.WithEngine(newEngine(t)), runtime.WithModelID("parent-model", e.parent), runtime.WithModelID("child-model", e.child)}, o.opts...)
	for name, c := range o.extra {
		opts = append(opts, runtime.WithModelID(name+"-model", c))
	}
	rt, err := runtime.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	e.rt = rt
	e.registerDesk(o.desk)
	childUses := []runtime.ToolsetUse{}
	if len(o.desk) > 0 {
		childUses = append(childUses, runtime.ToolsetUse{Toolset: "desk"})
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "specialist", ModelID: "child-model", Uses: childUses, Policy: o.childPolicy}); err != nil {
		t.Fatal(err)
	}
	for name := range o.extra {
		if err := rt.RegisterAgent(runtime.AgentRegistration{Name: name, ModelID: name + "-model", Uses: childUses}); err != nil {
			t.Fatal(err)
		}
	}
	agent := o.childAgent
	if agent == "" {
		agent = "specialist"
	}
	if err := rt.RegisterToolset(runtime.ToolsetRegistration{Name: "specialist.tools", Specs: []tools.ToolSpec{askSpec(t)}, Agent: agent}); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterAgent(runtime.AgentRegistration{Name: "parent", ModelID: "parent-model", Uses: []runtime.ToolsetUse{{Toolset: "specialist.tools"}}, Policy: o.parentPolicy}); err != nil {
		t.Fatal(err)
	}
	return e
}

// registerDesk registers the specialist's toolset "desk", counting runs.
func (e *agentsEnv) registerDesk(desk []fixtureTool) {
	if len(desk) == 0 {
		return
	}
	handlers := map[tools.Ident]handler{}
	var specs []tools.ToolSpec
	for _, ft := range desk {
		specs = append(specs, ft.spec)
		handlers[ft.spec.Name] = ft.handler
	}
	err := e.rt.RegisterToolset(runtime.ToolsetRegistration{Name: "desk", Specs: specs, Executor: runtime.ToolExecutorFunc(func(ctx context.Context, call *runtime.ToolCall) (*planner.ToolResult, error) {
		e.mu.Lock()
		e.runs[call.Ident]++
		e.mu.Unlock()
		if h := handlers[call.Ident]; h != nil {
			return h(ctx, call)
		}
		return &planner.ToolResult{Result: json.RawMessage(`{"ok":true}`)}, nil
	})})
	if err != nil {
		e.t.Fatal(err)
	}
}

// deskSpec is a tool of the specialist's toolset.
func deskSpec(t *testing.T, name string, opts ...specOption) tools.ToolSpec {
	return capsSpec(t, "desk", name, opts...)
}

// run runs the parent on text.
func (e *agentsEnv) run(text string) *runtime.RunOutput {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	out, err := e.rt.Run(ctx, "parent", runtime.RunInput{Messages: []model.Message{model.UserMessage(text)}})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// toolResult is the content of the result of call id in out's messages.
func toolResult(t *testing.T, out *runtime.RunOutput, callID string) (string, bool) {
	t.Helper()
	for _, m := range out.Messages {
		for _, p := range m.Parts {
			if p.Kind == model.PartToolResult && p.ToolResult.CallID == callID {
				return string(p.ToolResult.Content), p.ToolResult.IsError
			}
		}
	}
	t.Fatalf("no result of call %s in %+v", callID, out.Messages)
	return "", false
}

// failureCode is the code of a failure's JSON.
func failureCode(content string) string {
	var f struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(content), &f)
	return f.Error
}

// eventsOf returns the events of run id, from the run log.
func (e *agentsEnv) eventsOf(runID string) []runtime.Event {
	e.t.Helper()
	return runEvents(e.t, e.rt.RunLog(), runID)
}

// ran is how many times tool id ran.
func (e *agentsEnv) ran(id tools.Ident) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runs[id]
}
