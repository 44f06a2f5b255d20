package codegen_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// agentToolDesign is the design of the agent-as-tool tests: an analyst
// agent exporting a toolset, and a front-desk agent of another service
// consuming it through AgentToolset.
func agentToolDesign() {
	Service("research", func() {
		Agent("analyst", "Researches a topic.", func() {
			Export("research.tools", func() {
				Description("Research a topic.")
				Tool("brief", "Write a brief on a topic.", func() {
					Args(func() {
						Attribute("topic", String, "The topic")
						Required("topic")
					})
					Return(func() {
						Attribute("summary", String, "The brief")
						Required("summary")
					})
				})
			})
		})
	})
	Service("desk", func() {
		Agent("front", "Answers the user.", func() {
			Use(AgentToolset("research", "analyst", "research.tools"))
		})
	})
}

// TestAgentToolsGenerated checks the files of an agent export and of its
// consumer: the exporting agent's agenttools package, and a consumer whose
// registration takes no executor for the agent toolset.
func TestAgentToolsGenerated(t *testing.T) {
	files, warnings := generate(t, agentToolDesign)
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none", warnings)
	}
	dir := t.TempDir()
	paths := render(t, dir, files)
	const agentTools = "gen/agents/research/analyst/agenttools/researchtools/agenttools.go"
	if !slices.Contains(paths, agentTools) {
		t.Fatalf("generated %v, want %s", paths, agentTools)
	}
	front := string(readFile(t, filepath.Join(dir, "gen/agents/desk/front/agent.go")))
	for _, want := range []string{
		`researchtoolsagent "example.com/app/gen/agents/research/analyst/agenttools/researchtools"`,
		"researchtoolsagent.Registration,",
		"RegisterAnalystAgent",
	} {
		if !strings.Contains(front, want) {
			t.Errorf("front/agent.go lacks %q", want)
		}
	}
	if strings.Contains(front, "researchtools.Specs}") {
		t.Error("front/agent.go registers the agent toolset with an executor")
	}
	for _, p := range paths {
		if b := readFile(t, filepath.Join(dir, p)); strings.Contains(string(b), "not generated yet") {
			t.Errorf("%s says agent-as-tool is not generated yet", p)
		}
	}
}

// TestGeneratedAgentToolRuns builds the packages of agentToolDesign and
// runs a program registering both agents on one runtime, with a scripted
// model each: the front desk calls the analyst's exported tool, the
// runtime runs the analyst as a child run on the call's payload, and the
// front desk answers with the analyst's answer.
func TestGeneratedAgentToolRuns(t *testing.T) {
	files, _ := generate(t, agentToolDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "agenttoolscheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, files, string(main)); out != "The analyst says: tides rise twice a day.\n" {
		t.Errorf("check program printed %q", out)
	}
}
