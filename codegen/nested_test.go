package codegen_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"
	"goa.design/goa/v3/eval"
	goaexpr "goa.design/goa/v3/expr"

	"github.com/quiver-go/quiver/codegen"
	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/dsl/dsltest"
)

// nestedDesign is the design of the nested toolset tests: an agent
// declaring a toolset inline and exporting another inline one, a service
// exporting an inline toolset, and an agent consuming the first agent's
// export through AgentToolset next to an inline toolset of its own.
func nestedDesign() {
	Service("planning", func() {
		Agent("planner", "Plans work.", func() {
			Use("scratch", func() {
				Tool("note", "Write a scratch note.", func() {
					Args(func() {
						Attribute("text", String, "The note")
						Required("text")
					})
				})
				Tool("recall", "Recall the scratch notes.", func() {
					Return(func() { Attribute("notes", ArrayOf(String), "The notes") })
				})
				Deferred("recall")
			})
			Export("planning.tools", func() {
				Description("Plan work.")
				Tags("planning")
				Tool("create_plan", "Create a plan for a goal.", func() {
					Args(func() {
						Attribute("goal", String, "The goal")
						Required("goal")
					})
					Return(func() { Attribute("steps", ArrayOf(String), "The steps") })
				})
			})
		})
		Export("planning.catalog", func() {
			Tool("list_plans", "List the stored plans.", func() {
				Return(func() { Attribute("names", ArrayOf(String), "Plan names") })
			})
		})
	})
	Service("assistant", func() {
		Agent("helper", "Helps with plans.", func() {
			Use(AgentToolset("planning", "planner", "planning.tools"), func() { Deferred() })
			Use("memo", func() {
				Tool("remember", "Remember a fact for the user.", func() {
					Args(func() {
						Attribute("fact", String, "The fact")
						Required("fact")
					})
				})
			})
		})
	})
}

// nestedFiles are the files nestedDesign generates, in order.
var nestedFiles = []string{
	"gen/agents/planning/planner/toolsets/scratch/types.go",
	"gen/agents/planning/planner/toolsets/scratch/specs.go",
	"gen/agents/planning/planner/toolsets/scratch/tool_schemas.json",
	"gen/agents/assistant/helper/toolsets/memo/types.go",
	"gen/agents/assistant/helper/toolsets/memo/specs.go",
	"gen/agents/assistant/helper/toolsets/memo/tool_schemas.json",
	"gen/planning/exports/planningcatalog/types.go",
	"gen/planning/exports/planningcatalog/specs.go",
	"gen/planning/exports/planningcatalog/tool_schemas.json",
	"gen/agents/planning/planner/exports/planningtools/types.go",
	"gen/agents/planning/planner/exports/planningtools/specs.go",
	"gen/agents/planning/planner/exports/planningtools/tool_schemas.json",
	"gen/agents/planning/planner/agenttools/planningtools/agenttools.go",
	"gen/agents/planning/planner/agent.go",
	"gen/agents/planning/planner/client.go",
	"gen/agents/assistant/helper/agent.go",
	"gen/agents/assistant/helper/client.go",
	"AGENTS_QUICKSTART.md",
}

func TestGoldenNested(t *testing.T) {
	files, warnings := generate(t, nestedDesign)
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none", warnings)
	}
	dir := t.TempDir()
	paths := render(t, dir, files)
	if !slices.Equal(paths, nestedFiles) {
		t.Fatalf("generated %v, want %v", paths, nestedFiles)
	}
	helper := string(readFile(t, filepath.Join(dir, "gen/agents/assistant/helper/agent.go")))
	for _, want := range []string{
		`"example.com/app/gen/agents/planning/planner/exports/planningtools"`,
		`"example.com/app/gen/agents/assistant/helper/toolsets/memo"`,
		`It is exported by agent "planner" of service "planning", run as the tool`,
		"agent-as-tool",
		"planningtools.CreatePlan,",
		`planningtoolsagent "example.com/app/gen/agents/planning/planner/agenttools/planningtools"`,
		"planningtoolsagent.Registration,",
	} {
		if !strings.Contains(helper, want) {
			t.Errorf("helper/agent.go lacks %q", want)
		}
	}
	for _, unwanted := range []string{"not generated yet", "{ToolsetPlanningTools, planningtools.Specs}"} {
		if strings.Contains(helper, unwanted) {
			t.Errorf("helper/agent.go holds %q: an agent toolset takes no executor", unwanted)
		}
	}
	agentTools := string(readFile(t, filepath.Join(dir, "gen/agents/planning/planner/agenttools/planningtools/agenttools.go")))
	for _, want := range []string{
		"package planningtools",
		`toolset "example.com/app/gen/agents/planning/planner/exports/planningtools"`,
		`const Name = "planning.tools"`,
		`const Agent = "planning.planner"`,
		"func Registration() runtime.ToolsetRegistration {",
		"Specs: toolset.Specs(),",
	} {
		if !strings.Contains(agentTools, want) {
			t.Errorf("agenttools.go lacks %q", want)
		}
	}
	quickstart := string(readFile(t, filepath.Join(dir, "AGENTS_QUICKSTART.md")))
	for _, want := range []string{"not generated yet", "planningtoolsExecutor", "helper.ToolsetPlanningTools:"} {
		if strings.Contains(quickstart, want) {
			t.Errorf("AGENTS_QUICKSTART.md holds %q", want)
		}
	}
	if want := "Register `planning.planner` on the same\nruntime before the first run"; !strings.Contains(quickstart, want) {
		t.Errorf("AGENTS_QUICKSTART.md lacks %q", want)
	}
	var golden []string
	for _, p := range paths {
		if !strings.HasSuffix(p, ".json") {
			golden = append(golden, p)
		}
	}
	compareGolden(t, dir, golden, func(p string) string {
		return filepath.Join("testdata", "nested", filepath.FromSlash(p)+".golden")
	})
}

// TestNestedNameCollision checks that two distinct toolsets sharing a name
// (here an inline one and a top-level one) fail code generation: their
// idents and runtime registrations would collide.
func TestNestedNameCollision(t *testing.T) {
	root, err := dsltest.Run(func() {
		notes := Toolset("notes", func() {
			Tool("add", "Add a note.", func() {})
		})
		Service("assistant", func() {
			Agent("a", "First.", func() { Use(notes) })
			Agent("b", "Second.", func() {
				Use("notes", func() { Tool("read", "Read the notes.", func() {}) })
			})
		})
	})
	if err != nil {
		t.Fatalf("evaluate design: %v", err)
	}
	saved := codegen.Warnings
	codegen.Warnings = func(string) {}
	defer func() { codegen.Warnings = saved }()
	_, err = codegen.Generate("example.com/app/gen", []eval.Root{goaexpr.Root, root}, nil)
	if err == nil || !strings.Contains(err.Error(), `top-level toolset "notes" and toolset "notes" declared inline by agent "b" of service "assistant" share the name "notes"`) {
		t.Errorf("Generate = %v, want a name collision", err)
	}
}

// TestGeneratedNestedBuilds builds and vets the nested packages, then runs
// a program checking them and running one turn of an agent with an inline
// toolset and an AgentToolset use.
func TestGeneratedNestedBuilds(t *testing.T) {
	files, _ := generate(t, nestedDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "nestedcheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, files, string(main)); out != "ok done\n" {
		t.Errorf("check program printed %q", out)
	}
}
