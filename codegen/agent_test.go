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

// agentsDesign is the design of the agent tests: two local toolsets, an
// agent subsetting one and deferring tools of both under a full run
// policy, a second agent sharing a toolset under a compression policy, and
// an agent deferring the tools of an external MCP toolset, whose executor
// is an upstream client (registry sources: registries_test.go).
func agentsDesign() {
	records := Toolset("records", func() {
		Description("Work with the tables of a data workspace.")
		Tool("listTables", "List the tables of the workspace.", func() {
			Args(func() { Attribute("query", String, "Filter on the table name") })
			Return(func() { Attribute("names", ArrayOf(String), "Table names") })
		})
		Tool("describeTable", "Describe the columns of a table.", func() {
			Args(func() {
				Attribute("name", String, "Table name")
				Required("name")
			})
		})
		Tool("exportTable", "Export a table as CSV.", func() {
			Args(func() {
				Attribute("name", String, "Table name")
				Required("name")
			})
			Keywords("csv", "download")
		})
		Tool("dropTable", "Delete a table.", func() {
			Args(func() {
				Attribute("name", String, "Table name")
				Required("name")
			})
		})
	})
	notes := Toolset("notes", func() {
		Description("Keep notes about the workspace.")
		Tool("addNote", "Add a note.", func() {
			Args(func() {
				Attribute("text", String, "The note")
				Required("text")
			})
		})
	})
	Registry("corp", func() { URL("https://registry.example.com") })
	remote := Toolset("remote-search", FromExternalMCP("remote", "search"), func() {
		Tool("web_search", "Search the web", func() {
			Args(func() { Attribute("query", String) })
		})
	})
	Service("assistant", func() {
		Agent("chat", "Answers questions about the workspace.", func() {
			Use(records, func() {
				Tool("listTables")
				Tool("exportTable")
				Tool("describeTable")
				Deferred("exportTable")
				Deferred("describeTable")
			})
			Use(notes, func() { Deferred() })
			RunPolicy(func() {
				DefaultCaps(MaxToolCalls(8), MaxRecoveryTurns(0))
				Timing(func() {
					Budget("5m")
					Plan("30s")
					Tools("1m30s")
				})
				History(func() { KeepRecentTurns(20) })
				Cache(func() { AfterSystem() })
				InterruptsAllowed(true)
				OnMissingFields("await_clarification")
			})
		})
		Agent("auditor", "Reviews every table.", func() {
			Use(records)
			RunPolicy(func() {
				DefaultCaps(MaxRecoveryTurns(2))
				TimeBudget("2m")
				History(func() {
					CompressAtTurns(10)
					KeepMaxTurns(4)
				})
			})
		})
		Agent("federated", "Searches the web over MCP.", func() { Use(remote, func() { Deferred() }) })
	})
}

// agentFiles are the files agentsDesign generates, in order.
var agentFiles = []string{
	"gen/toolsets/records/types.go",
	"gen/toolsets/records/specs.go",
	"gen/toolsets/records/tool_schemas.json",
	"gen/toolsets/notes/types.go",
	"gen/toolsets/notes/specs.go",
	"gen/toolsets/notes/tool_schemas.json",
	"gen/toolsets/remotesearch/types.go",
	"gen/toolsets/remotesearch/specs.go",
	"gen/toolsets/remotesearch/tool_schemas.json",
	"gen/toolsets/remotesearch/mcp.go",
	"gen/registries/corp/client.go",
	"gen/agents/assistant/chat/agent.go",
	"gen/agents/assistant/chat/client.go",
	"gen/agents/assistant/auditor/agent.go",
	"gen/agents/assistant/auditor/client.go",
	"gen/agents/assistant/federated/agent.go",
	"gen/agents/assistant/federated/client.go",
	"AGENTS_QUICKSTART.md",
}

func TestGoldenAgents(t *testing.T) {
	files, warnings := generate(t, agentsDesign)
	dir := t.TempDir()
	paths := render(t, dir, files)
	if !slices.Equal(paths, agentFiles) {
		t.Fatalf("generated %v, want %v", paths, agentFiles)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none: the agent using an MCP toolset generates", warnings)
	}
	chat := string(readFile(t, filepath.Join(dir, "gen/agents/assistant/chat/agent.go")))
	for _, want := range []string{
		`Deferred: []string{"describeTable", "exportTable"}`,
		"DeferAll: true",
		"MaxRecoveryTurns:  runtime.NoRecoveryTurns",
		"&runtime.Timing{Budget: 5 * time.Minute, Plan: 30 * time.Second, Tools: 90 * time.Second}",
		"&history.Policy{KeepRecentTurns: 20}",
		"OnMissingFields:   runtime.MissingFieldsAwaitClarification",
	} {
		if !strings.Contains(chat, want) {
			t.Errorf("chat/agent.go lacks %q", want)
		}
	}
	federated := string(readFile(t, filepath.Join(dir, "gen/agents/assistant/federated/agent.go")))
	for _, want := range []string{
		"MCPClients map[string]*upstream.Client",
		"{ToolsetRemoteSearch, remotesearch.Register}",
		"remotesearch.WebSearch,",
	} {
		if !strings.Contains(federated, want) {
			t.Errorf("federated/agent.go lacks %q", want)
		}
	}
	compareGolden(t, dir, paths[6:], func(p string) string {
		return filepath.Join("testdata", "agents", filepath.FromSlash(p)+".golden")
	})
}

func TestAgentDocsDisabled(t *testing.T) {
	files, _ := generate(t, func() {
		API("app", func() { DisableAgentDocs() })
		agentsDesign()
	})
	for _, f := range files {
		if f.Path == "AGENTS_QUICKSTART.md" {
			t.Fatal("AGENTS_QUICKSTART.md generated despite DisableAgentDocs()")
		}
	}
	if n := len(files); n != len(agentFiles)-1 {
		t.Errorf("generated %d files, want %d", n, len(agentFiles)-1)
	}
}

// TestGeneratedAgentBuilds builds and vets the agent packages, then runs a
// program registering both agents on one runtime with a scripted model and
// running one turn.
func TestGeneratedAgentBuilds(t *testing.T) {
	files, _ := generate(t, agentsDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "agentcheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, files, string(main)); out != "ok hi\n" {
		t.Errorf("check program printed %q", out)
	}
}
