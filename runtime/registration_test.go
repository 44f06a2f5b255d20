package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/planner"
	"github.com/quiver-go/quiver/search"
	"github.com/quiver-go/quiver/tools"
)

func noopExecutor() ToolExecutor {
	return ToolExecutorFunc(func(context.Context, *ToolCall) (*planner.ToolResult, error) {
		return &planner.ToolResult{}, nil
	})
}

func TestRegisterToolsetRefusesAToolWithoutTitle(t *testing.T) {
	rt, err := New()
	if err != nil {
		t.Fatal(err)
	}
	untitled := newSpec(t, "export", func(s *tools.ToolSpec) { s.Title = "" })
	err = rt.RegisterToolset(ToolsetRegistration{Name: "ws", Specs: []tools.ToolSpec{newSpec(t, "open"), untitled}, Executor: noopExecutor()})
	if err == nil || !strings.Contains(err.Error(), "title") {
		t.Fatalf("err = %v, want the missing title named", err)
	}
	// Nothing of the refused toolset is registered.
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "ws", Specs: []tools.ToolSpec{newSpec(t, "open")}, Executor: noopExecutor()}); err != nil {
		t.Fatalf("a refused registration left something behind: %v", err)
	}
}

func TestRegisterToolsetReportsEveryProblem(t *testing.T) {
	rt, _ := New()
	other := newSpec(t, "x")
	other.Name = "other.x"
	other.Search = search.NewDocument(other.SearchSource())
	err := rt.RegisterToolset(ToolsetRegistration{Name: "ws", Specs: []tools.ToolSpec{other, newSpec(t, "a"), newSpec(t, "a")}})
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"executor is nil", `does not belong to toolset "ws"`, "listed twice"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestRegisterAgentChecksItsToolsetsAndDeferral(t *testing.T) {
	rt, _ := New()
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "ws", Specs: []tools.ToolSpec{newSpec(t, "open"), newSpec(t, "export")}, Executor: noopExecutor()}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		uses []ToolsetUse
		want string
	}{
		{"unknown toolset", []ToolsetUse{{Toolset: "nope"}}, `toolset "nope" is not registered`},
		{"unknown subset tool", []ToolsetUse{{Toolset: "ws", Tools: []string{"close"}}}, `has no tool "close"`},
		{"qualified deferred name", []ToolsetUse{{Toolset: "ws", Deferred: []string{"ws.export"}}}, "use the bare tool name"},
		{"deferred all and by name", []ToolsetUse{{Toolset: "ws", DeferAll: true, Deferred: []string{"export"}}}, "cannot be combined"},
		{"duplicate deferred name", []ToolsetUse{{Toolset: "ws", Deferred: []string{"export", "export"}}}, "non-empty and unique"},
		{"tool consumed twice", []ToolsetUse{{Toolset: "ws"}, {Toolset: "ws", Tools: []string{"open"}}}, "consumed twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := rt.RegisterAgent(AgentRegistration{Name: c.name, Planner: planner.NewStandard(), Uses: c.uses})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
	// No planner: the standard, model-driven one.
	if err := rt.RegisterAgent(AgentRegistration{Name: "a", Uses: []ToolsetUse{{Toolset: "ws"}}}); err != nil {
		t.Fatalf("agent without planner: err = %v", err)
	}
	if a, err := rt.agent("a"); err != nil || a.reg.Planner == nil {
		t.Fatalf("agent without planner registered with %v (%v), want planner.NewStandard()", a, err)
	}
	if _, ok := rt.agents["a"].reg.Planner.(*planner.Standard); !ok {
		t.Fatalf("planner %T, want *planner.Standard", rt.agents["a"].reg.Planner)
	}
}

func TestDeferralBelongsToTheConsumer(t *testing.T) {
	rt, _ := New()
	if err := rt.RegisterToolset(ToolsetRegistration{Name: "ws", Specs: []tools.ToolSpec{newSpec(t, "open"), newSpec(t, "export")}, Executor: noopExecutor()}); err != nil {
		t.Fatal(err)
	}
	for _, reg := range []AgentRegistration{
		{Name: "deferring", Planner: planner.NewStandard(), Uses: []ToolsetUse{{Toolset: "ws", Deferred: []string{"export"}}}},
		{Name: "eager", Planner: planner.NewStandard(), Uses: []ToolsetUse{{Toolset: "ws"}}},
	} {
		if err := rt.RegisterAgent(reg); err != nil {
			t.Fatal(err)
		}
	}
	deferred := func(agent string) []string {
		a, _ := rt.agent(agent)
		cat, err := rt.buildCatalog(a, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range cat.AdvertisedToolDefinitions() {
			if d.Deferred {
				out = append(out, d.Name)
			}
		}
		return out
	}
	if got := deferred("deferring"); len(got) != 1 || got[0] != "export" {
		t.Errorf("deferring agent defers %v, want [export]", got)
	}
	if got := deferred("eager"); len(got) != 0 {
		t.Errorf("another consumer of the same toolset defers %v, want nothing", got)
	}
}
