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

// mcpConsumerDesign is seed 003's quickstart ("Exemple de démarrage
// rapide": agent chat using a local toolset and Toolset(FromMCP("assistant",
// "assistant-mcp"))), with the service "assistant" declaring that MCP
// server as the seed's complete MCP server example does, and the seed's
// FromExternalMCP example ("Jeu d'outils avec FromMCP / FromExternalMCP":
// toolset remote-search, agent helper) whose use defers the MCP tool.
func mcpConsumerDesign() {
	Service("assistant", func() {
		Description("MCP server example")
		MCP("assistant-mcp", "1.0.0")
		Method("search", func() {
			Description("Search documents")
			Payload(func() {
				Attribute("query", String, "Search query")
				Required("query")
			})
			Result(func() {
				Attribute("results", ArrayOf(String), "Search results")
				Required("results")
			})
			Tool("search", "Search documents by query")
		})
	})
	DocsToolset := Toolset("docs.search", func() {
		Tool("search", "Search indexed documentation", func() {
			Args(func() {
				Attribute("query", String, "Search phrase")
				Attribute("limit", Int, "Max results", func() { Default(5) })
				Required("query")
			})
			Return(func() {
				Attribute("documents", ArrayOf(String), "Matched snippets")
				Required("documents")
			})
			Tags("docs", "search")
		})
	})
	AssistantSuite := Toolset(FromMCP("assistant", "assistant-mcp"))
	RemoteSearch := Toolset("remote-search", FromExternalMCP("remote", "search"), func() {
		Tool("web_search", "Search the web", func() {
			Args(func() { Attribute("query", String) })
			Return(func() { Attribute("results", ArrayOf(String)) })
		})
	})
	Service("orchestrator", func() {
		Description("Human front door for the knowledge agent.")
		Agent("chat", "Conversational runner", func() {
			Use(DocsToolset)
			Use(AssistantSuite)
			Export("chat.tools", func() {
				Tool("summarize_status", "Produce operator-ready summaries", func() {
					Args(func() {
						Attribute("prompt", String, "User instructions")
						Required("prompt")
					})
					Return(func() {
						Attribute("summary", String, "Assistant response")
						Required("summary")
					})
					Tags("chat")
				})
			})
			RunPolicy(func() {
				DefaultCaps(
					MaxToolCalls(8),
					MaxRecoveryTurns(3),
				)
				TimeBudget("2m")
			})
		})
		Agent("helper", "", func() {
			Use(RemoteSearch, func() { Deferred() })
			Use(AssistantSuite, func() { Deferred("search") })
		})
	})
}

// mcpConsumerGoldens are the generated files of mcpConsumerDesign compared
// with testdata/mcpconsumer: the MCP-backed toolsets' packages (FromMCP's
// is its server's method tools' package) and both agents.
var mcpConsumerGoldens = []string{
	"gen/assistant/mcpserver/assistantmcp/specs.go",
	"gen/assistant/mcpserver/assistantmcp/mcp.go",
	"gen/toolsets/remotesearch/types.go",
	"gen/toolsets/remotesearch/specs.go",
	"gen/toolsets/remotesearch/mcp.go",
	"gen/agents/orchestrator/chat/agent.go",
	"gen/agents/orchestrator/helper/agent.go",
	"AGENTS_QUICKSTART.md",
}

func TestGoldenMCPConsumer(t *testing.T) {
	root := mustRoot(t, mcpConsumerDesign)
	if len(root.Warnings) != 0 {
		t.Errorf("design warnings = %q, want none", root.Warnings)
	}
	_, files := generateWithServices(t, mcpConsumerDesign)
	dir := t.TempDir()
	paths := render(t, dir, files)
	for _, p := range mcpConsumerGoldens {
		if !slices.Contains(paths, p) {
			t.Fatalf("generated %v, want %s", paths, p)
		}
	}
	for _, p := range paths {
		if strings.HasPrefix(p, "gen/toolsets/assistantmcp/") {
			t.Errorf("the FromMCP toolset named after its server got a package of its own (%s): it shares the server's", p)
		}
	}
	helper := string(readFile(t, filepath.Join(dir, "gen/agents/orchestrator/helper/agent.go")))
	for _, want := range []string{
		"{ToolsetRemoteSearch, remotesearch.Register}",
		"{ToolsetAssistantMcp, assistantmcp.Register}",
		"assistantmcp.Search,\n\t\tremotesearch.WebSearch,",
	} {
		if !strings.Contains(helper, want) {
			t.Errorf("helper/agent.go lacks %q", want)
		}
	}
	compareGolden(t, dir, mcpConsumerGoldens, func(p string) string {
		return filepath.Join("testdata", "mcpconsumer", filepath.FromSlash(p)+".golden")
	})
}

// TestMCPConsumerBuilds builds and vets everything mcpConsumerDesign
// generates with Goa's service packages, then runs a program checking the
// generated MCP-backed toolsets and agents without a server.
func TestMCPConsumerBuilds(t *testing.T) {
	svc, ours := generateWithServices(t, mcpConsumerDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "mcpconsumercheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, append(svc, ours...), string(main)); out != "ok\n" {
		t.Errorf("check program printed %q", out)
	}
}

// TestMCPAgentRunsAgainstSubprocessServers generates mcpConsumerDesign,
// builds it with an MCP server program (testdata/mcpagentcheck/server.go.txt:
// an external Go SDK server, a drifted one, and the design's own server),
// and runs agent helper on a scripted model against those servers in
// subprocesses over stdio: both MCP-backed toolsets are deferred, the model
// finds each tool by search and calls it, and the calls reach the servers;
// a server whose schema drifted is refused at registration.
func TestMCPAgentRunsAgainstSubprocessServers(t *testing.T) {
	svc, ours := generateWithServices(t, mcpConsumerDesign)
	extra := map[string]string{}
	for name, file := range map[string]string{"cmd/check/main.go": "main.go.txt", "cmd/server/main.go": "server.go.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "mcpagentcheck", file))
		if err != nil {
			t.Fatal(err)
		}
		extra[name] = string(b)
	}
	run := buildModule(t, append(svc, ours...), extra)
	run("build", "-o", "bin/server", "./cmd/server")
	if out := run("run", "./cmd/check", "./bin/server"); out != "ok\n" {
		t.Errorf("check program printed %q", out)
	}
}

// TestRenamedFromMCPToolsetBuilds: a FromMCP toolset that Toolset names
// otherwise than its server gets gen/toolsets/<toolset> from the server's
// methods, with its own idents, and builds; an agent deferring its tool
// lists the renamed ident.
func TestRenamedFromMCPToolsetBuilds(t *testing.T) {
	design := func() {
		Service("assistant", func() {
			MCP("assistant-mcp", "1.0.0")
			Method("search", func() {
				Payload(func() {
					Attribute("query", String, "Search query")
					Required("query")
				})
				Result(func() { Attribute("results", ArrayOf(String)) })
				Tool("search", "Search documents by query")
			})
		})
		suite := Toolset("suite", FromMCP("assistant", "assistant-mcp"))
		Service("orchestrator", func() {
			Agent("chat", "Conversational runner", func() { Use(suite, func() { Deferred() }) })
		})
	}
	svc, ours := generateWithServices(t, design)
	dir := t.TempDir()
	paths := render(t, dir, ours)
	for _, want := range []string{"gen/toolsets/suite/specs.go", "gen/toolsets/suite/mcp.go", "gen/assistant/mcpserver/assistantmcp/specs.go", "gen/agents/orchestrator/chat/agent.go"} {
		if !slices.Contains(paths, want) {
			t.Fatalf("generated %v, want %s", paths, want)
		}
	}
	if slices.Contains(paths, "gen/assistant/mcpserver/assistantmcp/mcp.go") {
		t.Error("the server's own toolset package got mcp.go though no toolset of its name consumes it")
	}
	specs := string(readFile(t, filepath.Join(dir, "gen/toolsets/suite/specs.go")))
	if !strings.Contains(specs, `Search tools.Ident = "suite.search"`) {
		t.Errorf("suite/specs.go lacks the renamed ident:\n%s", specs)
	}
	main := `package main

import (
	"fmt"
	"slices"

	"github.com/quiver-go/quiver/tools"

	"example.com/app/gen/agents/orchestrator/chat"
	"example.com/app/gen/toolsets/suite"
)

func main() {
	if got := chat.DeferredTools(); !slices.Equal(got, []tools.Ident{suite.Search}) || suite.MCPServer != "assistant" || suite.MCPToolset != "assistant-mcp" {
		fmt.Println("DeferredTools", got)
		return
	}
	fmt.Println("ok")
}
`
	if out := buildAndRun(t, append(svc, ours...), main); out != "ok\n" {
		t.Errorf("check program printed %q", out)
	}
}
