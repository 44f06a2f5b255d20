package dsl_test

// Seed 003 (the DSL reference): one subtest per ```go snippet, translated
// to github.com/quiver-go/quiver/dsl and completed with the declarations it
// refers to (types, services, toolsets, registries, security schemes).
//
// Snippets out of scope, being goa-ai runtime Go code rather than design:
//   - "Descripteurs d'outils typés" (generated const/SearchTool func);
//   - "Données du serveur / Accès à l'exécution" (handleToolResult);
//   - "Résultat délimité / Comportement d'exécution" (planner.ToolResult literal);
//   - "Rappels dynamiques via PlannerContext" (PlanResume implementation);
//   - "Exigence du modèle d'historique" (two chat.ChatAgentConfig literals).
// The "Chemin d'importation" snippet is the import block of these files.

import (
	"regexp"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/dsl/dsltest"
	"github.com/quiver-go/quiver/expr"
)

// seedLocation is the [file:line] location of a seed test's design.
var seedLocation = regexp.MustCompile(`\[seed00[03][a-z_]*_test\.go:\d+\]`)

// seedReject runs design and asserts it is rejected with an error holding
// every fragment and a [file:line] location in the design (this file).
func seedReject(t *testing.T, design func(), fragments ...string) {
	t.Helper()
	wantError(t, design, fragments...)
	_, err := dsltest.Run(design)
	if err != nil && !seedLocation.MatchString(err.Error()) {
		t.Errorf("error names no [file:line] of the design:\n%v", err)
	}
}

// seedTool declares the snippet's tool in toolset "seed" used by agent
// "chat" of service "orchestrator".
func seedTool(tool func()) func() {
	return func() {
		ts := Toolset("seed", func() { tool() })
		Service("orchestrator", func() { Agent("chat", "Conversational runner", func() { Use(ts) }) })
	}
}

// seedAgent declares the snippet's agent in service "orchestrator".
func seedAgent(agent func()) func() {
	return func() { Service("orchestrator", agent) }
}

// seedDocsToolset is the seed's DocsToolset ("Ensemble d'outils").
func seedDocsToolset() *expr.ToolsetExpr {
	return Toolset("docs.search", func() {
		Description("Tools for searching documentation")
		Tool("search", "Search indexed documentation", func() {
			Args(func() {
				Attribute("query", String, "Search phrase")
				Required("query")
			})
			Return(func() {
				Attribute("documents", ArrayOf(String), "Matched snippets")
				Required("documents")
			})
		})
	})
}

// seedDataToolset is the seed's DataToolset.
func seedDataToolset() *expr.ToolsetExpr {
	return Toolset("data-tools", func() {
		Description("Tools for data processing and analysis")
		Tool("analyze", "Analyze dataset", func() {
			Args(func() {
				Attribute("dataset_id", String, "Dataset identifier")
				Required("dataset_id")
			})
			Return(func() {
				Attribute("insights", ArrayOf(String), "Analysis insights")
				Required("insights")
			})
		})
	})
}

// seedAssistantMCP is the Goa service "assistant" serving MCP server
// "assistant-mcp" that Toolset(FromMCP("assistant", "assistant-mcp")) names.
func seedAssistantMCP() {
	Service("assistant", func() {
		MCP("assistant-mcp", "1.0.0")
		JSONRPC(func() { POST("/mcp") })
		Method("search", func() {
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
}

func TestSeed003AgentAndToolsetSnippets(t *testing.T) {
	t.Run("003/Démarrage rapide", func(t *testing.T) {
		mustRun(t, func() {
			seedAssistantMCP()
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
			})
		})
	})
	t.Run("003/Completion", func(t *testing.T) {
		root := mustRun(t, func() {
			Draft := Type("Draft", func() {
				Attribute("name", String, "Task name")
				Attribute("goal", String, "Outcome-style goal")
				Required("name", "goal")
			})
			Service("tasks", func() {
				Completion("draft_from_transcript", "Produce a task draft directly", func() {
					Return(Draft)
				})
			})
		})
		if len(root.Completions) != 1 || root.Completions[0].Return == nil {
			t.Fatalf("completions = %+v", root.Completions)
		}
	})
	t.Run("003/Agent", func(t *testing.T) {
		mustRun(t, func() {
			DocsToolset := seedDocsToolset()
			Service("orchestrator", func() {
				Agent("chat", "Conversational runner", func() {
					Use(DocsToolset)
					Export("chat.tools", func() {
						// tools defined here (the seed leaves them out; an
						// export declares at least one)
						Tool("summarize_status", "Produce operator-ready summaries")
					})
					RunPolicy(func() {
						DefaultCaps(MaxToolCalls(8))
						TimeBudget("2m")
					})
				})
			})
		})
	})
	t.Run("003/Use", func(t *testing.T) {
		root := mustRun(t, func() {
			seedAssistantMCP()
			DocsToolset := seedDocsToolset()
			CommonTools := Toolset("common", func() {
				Tool("notify", "Notify the user")
				Tool("log", "Log a line")
			})
			AssistantSuite := Toolset(FromMCP("assistant", "assistant-mcp"))
			// The agent AgentToolset("service", "agent", "toolset") names.
			Service("service", func() {
				Agent("agent", "Exporting agent", func() {
					Export("toolset", func() { Tool("plan", "Plan a task") })
				})
			})
			Service("orchestrator", func() {
				Agent("chat", "Conversational runner", func() {
					// Reference a top-level toolset
					Use(DocsToolset)
					// Reference with subsetting
					Use(CommonTools, func() {
						Tool("notify") // consume only this tool from CommonTools
					})
					// Reference an MCP toolset declared at top level
					Use(AssistantSuite)
					// Inline agent-local toolset definition
					Use("helpers", func() {
						Tool("answer", "Answer a question", func() {
							// tool definition
						})
					})
					// Agent-as-tool composition
					Use(AgentToolset("service", "agent", "toolset"))
				})
			})
		})
		if n := len(root.Agents[len(root.Agents)-1].Uses); n != 5 {
			t.Fatalf("uses = %d, want 5", n)
		}
	})
	t.Run("003/Export", func(t *testing.T) {
		mustRun(t, seedAgent(func() {
			Agent("planner", "Planning agent", func() {
				Export("planning.tools", func() {
					Tool("create_plan", "Create a plan", func() {
						Args(func() {
							Attribute("goal", String, "Goal to plan for")
							Required("goal")
						})
						Return(func() {
							Attribute("plan", String, "Generated plan")
							Required("plan")
						})
					})
				})
			})
		}))
	})
	t.Run("003/AgentToolset", func(t *testing.T) {
		mustRun(t, func() {
			Service("service", func() {
				// Agent A exports tools
				Agent("planner", func() {
					Export("planning.tools", func() { /* tools */ Tool("create_plan", "Create a plan") })
				})
				// Agent B uses Agent A's tools
				Agent("orchestrator", func() {
					Use(AgentToolset("service", "planner", "planning.tools"))
				})
			})
		})
	})
	t.Run("003/Passthrough", func(t *testing.T) {
		root := mustRun(t, func() {
			Service("LoggingService", func() {
				Method("LogMessage", func() {
					Payload(func() { Attribute("message", String); Required("message") })
					Result(func() { Attribute("logged", Boolean) })
				})
			})
			Service("orchestrator", func() {
				Agent("logger", "Logs messages", func() {
					Export("logging-tools", func() {
						Tool("log_message", "Log a message", func() {
							Args(func() {
								Attribute("message", String, "Message to log")
								Required("message")
							})
							Return(func() {
								Attribute("logged", Boolean, "Whether the message was logged")
							})
							Passthrough("log_message", "LoggingService", "LogMessage")
						})
					})
				})
			})
		})
		if len(root.Exports) != 1 || len(root.Exports[0].Passthroughs) != 1 {
			t.Fatalf("exports = %+v", root.Exports)
		}
	})
	t.Run("003/DisableAgentDocs", func(t *testing.T) {
		root := mustRun(t, func() {
			API("orchestrator", func() {
				DisableAgentDocs()
			})
		})
		if !root.DisableAgentDocs {
			t.Fatal("agent docs still enabled")
		}
	})
	t.Run("003/Toolset", func(t *testing.T) {
		mustRun(t, func() { seedDocsToolset() })
	})
	t.Run("003/Toolset/Description", func(t *testing.T) {
		root := mustRun(t, func() { seedDataToolset() })
		if d := root.Toolset("data-tools").Description; d != "Tools for data processing and analysis" {
			t.Fatalf("description = %q", d)
		}
	})
}
