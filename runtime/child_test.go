package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/tools"
)

// TestACycleOfAgentsIsRefused: the registration that closes a cycle fails
// with the path, and registers nothing.
func TestACycleOfAgentsIsRefused(t *testing.T) {
	rt, err := New(WithModel(model.ModelClassDefault, scripted.New()))
	if err != nil {
		t.Fatal(err)
	}
	spec := func(ts string) []tools.ToolSpec { return []tools.ToolSpec{capsSpec(t, ts, "ask")} }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rt.RegisterToolset(ToolsetRegistration{Name: "b.tools", Specs: spec("b.tools"), Agent: "b"}))
	must(rt.RegisterAgent(AgentRegistration{Name: "a", Uses: []ToolsetUse{{Toolset: "b.tools"}}}))
	must(rt.RegisterToolset(ToolsetRegistration{Name: "a.tools", Specs: spec("a.tools"), Agent: "a"}))
	err = rt.RegisterAgent(AgentRegistration{Name: "b", Uses: []ToolsetUse{{Toolset: "a.tools"}}})
	if err == nil || !strings.Contains(err.Error(), "a uses b.tools (agent b), b uses a.tools (agent a)") {
		t.Fatalf("err = %v, want the cycle's path", err)
	}
	if _, err := rt.agent("b"); err == nil {
		t.Fatal("the refused agent was registered")
	}
	// A self-call through a toolset registered after the agent.
	must(rt.RegisterAgent(AgentRegistration{Name: "c", Uses: []ToolsetUse{{Toolset: "a.tools"}}}))
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "x.tools", Specs: spec("x.tools"), Executor: ToolExecutorFunc(nil)}); err != nil {
		t.Fatal(err)
	}
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "b.tools2", Specs: spec("b.tools2"), Agent: "a", Executor: ToolExecutorFunc(nil)}); err == nil || !strings.Contains(err.Error(), "both Executor and Agent") {
		t.Fatalf("both set: %v", err)
	}
	// One name, two kinds of toolset: refused, and not as the same
	// toolset registered twice (which generated code skips).
	err = rt.RegisterToolset(ToolsetRegistration{Name: "x.tools", Specs: spec("x.tools"), Agent: "a"})
	if err == nil || errors.Is(err, ErrToolsetRegistered) || !strings.Contains(err.Error(), `run by its executor, and this one running agent "a"`) {
		t.Fatalf("an agent toolset over an executor's name: %v", err)
	}
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "b.tools", Specs: spec("b.tools"), Agent: "b"}); !errors.Is(err, ErrToolsetRegistered) {
		t.Fatalf("the same agent toolset again: %v, want ErrToolsetRegistered", err)
	}
}
