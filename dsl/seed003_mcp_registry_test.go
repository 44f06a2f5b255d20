package dsl_test

// Seed 003, "Fonctions MCP" and "Fonctions de registre": one subtest per
// snippet.

import (
	"testing"
	"time"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/expr"
)

// seedCorpRegistry is the seed's CorpRegistry, with the API key scheme it
// refers to.
func seedCorpRegistry() *expr.RegistryExpr {
	CorpAPIKey := APIKeySecurity("corp_api_key", func() { Description("Corporate registry key") })
	return Registry("corp-registry", func() {
		Description("Corporate tool registry")
		URL("https://registry.corp.internal")
		APIVersion("v1")
		Security(CorpAPIKey)
		Timeout("30s")
		Retry(3, "1s")
		SyncInterval("5m")
		CacheTTL("1h")
	})
}

func TestSeed003MCPSnippets(t *testing.T) {
	t.Run("003/MCP", func(t *testing.T) {
		root := mustRun(t, func() {
			Service("calculator", func() {
				Description("Calculator MCP server")
				MCP("calc", "1.0.0")
				JSONRPC(func() { POST("/mcp") })
				Method("add", func() {
					Payload(func() {
						Attribute("a", Int, "First number")
						Attribute("b", Int, "Second number")
						Required("a", "b")
					})
					Result(func() {
						Attribute("sum", Int, "Result of addition")
						Required("sum")
					})
					Tool("add", "Add two numbers")
				})
			})
		})
		if srv := root.MCPServerOf("calculator"); srv == nil || srv.Name != "calc" || len(srv.Tools) != 1 {
			t.Fatalf("MCP server = %+v", srv)
		}
	})
	t.Run("003/ProtocolVersion", func(t *testing.T) {
		mustRun(t, func() {
			Service("calculator", func() {
				// Use the default protocol supported by Goa-AI.
				MCP("calc", "1.0.0")
				JSONRPC(func() { POST("/mcp") })
			})
		})
		// The function the section documents, as an option of MCP.
		root := mustRun(t, func() {
			Service("calculator", func() {
				MCP("calc", "1.0.0", ProtocolVersion("2025-06-18"))
				JSONRPC(func() { POST("/mcp") })
			})
		})
		if v := root.MCPServerOf("calculator").ProtocolVersion; v != "2025-06-18" {
			t.Fatalf("protocol version = %q", v)
		}
	})
	t.Run("003/Tool (méthode)", func(t *testing.T) {
		mustRun(t, func() {
			Service("docs", func() {
				MCP("docs-mcp", "1.0.0")
				JSONRPC(func() { POST("/mcp") })
				Method("search", func() {
					Payload(func() {
						Attribute("query", String, "Search query")
						Attribute("limit", Int, "Maximum results", func() { Default(10) })
						Required("query")
					})
					Result(func() {
						Attribute("results", ArrayOf(String), "Search results")
						Required("results")
					})
					Tool("search", "Search documents by query")
				})
			})
		})
	})
	t.Run("003/FromMCP", func(t *testing.T) {
		root := mustRun(t, func() {
			seedAssistantMCP()
			AssistantSuite := Toolset(FromMCP("assistant", "assistant-mcp"))
			Service("orchestrator", func() {
				Agent("chat", func() {
					Use(AssistantSuite)
				})
			})
		})
		if ts := root.Toolset("assistant-mcp"); ts == nil || ts.Tool("search") == nil {
			t.Fatalf("FromMCP toolset = %+v", ts)
		}
	})
	t.Run("003/FromExternalMCP", func(t *testing.T) {
		mustRun(t, func() {
			RemoteSearch := Toolset("remote-search", FromExternalMCP("remote", "search"), func() {
				Tool("web_search", "Search the web", func() {
					Args(func() { Attribute("query", String) })
					Return(func() { Attribute("results", ArrayOf(String)) })
				})
			})
			Service("orchestrator", func() {
				Agent("helper", "", func() {
					Use(RemoteSearch)
				})
			})
		})
	})
	t.Run("003/Resource", func(t *testing.T) {
		mustRun(t, func() {
			Service("docs", func() {
				MCP("docs-mcp", "1.0.0")
				JSONRPC(func() { POST("/mcp") })
				Method("readme", func() {
					Result(String)
					Resource("readme", "file:///docs/README.md", "text/markdown")
				})
			})
		})
	})
	t.Run("003/StaticPrompt", func(t *testing.T) {
		mustRun(t, func() {
			Service("assistant", func() {
				MCP("assistant-mcp", "1.0")
				JSONRPC(func() { POST("/mcp") })
				StaticPrompt("greeting", "Friendly greeting",
					"system", "You are a helpful assistant",
					"user", "Hello!")
			})
		})
	})
	t.Run("003/Exemple complet de serveur MCP", func(t *testing.T) {
		root := mustRun(t, func() {
			Service("assistant", func() {
				Description("MCP server example")
				MCP("assistant-mcp", "1.0.0")
				JSONRPC(func() { POST("/mcp") })
				StaticPrompt("greeting", "Friendly greeting",
					"system", "You are a helpful assistant",
					"user", "Hello!")
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
				Method("get_readme", func() {
					Result(String)
					Resource("readme", "file:///README.md", "text/markdown")
				})
			})
		})
		srv := root.MCPServerOf("assistant")
		if len(srv.Tools) != 1 || len(srv.Resources) != 1 || len(srv.Prompts) != 1 {
			t.Fatalf("MCP server = %+v", srv)
		}
	})
}

func TestSeed003RegistrySnippets(t *testing.T) {
	t.Run("003/Registry", func(t *testing.T) {
		root := mustRun(t, func() { seedCorpRegistry() })
		if r := root.Registry("corp-registry"); r.Timeout != 30*time.Second || r.Retry.MaxRetries != 3 || r.CacheTTL != time.Hour {
			t.Fatalf("registry = %+v", r)
		}
	})
	t.Run("003/Federation", func(t *testing.T) {
		mustRun(t, func() {
			AnthropicOAuth := OAuth2Security("anthropic_oauth", func() {
				ClientCredentialsFlow("https://auth.anthropic.com/token", "")
				Scope("registry:read", "Read the registry")
			})
			Registry("anthropic", func() {
				Description("Anthropic MCP Registry")
				URL("https://registry.anthropic.com/v1")
				Security(AnthropicOAuth)
				Federation(func() {
					Include("web-search", "code-execution", "data-*")
					Exclude("experimental/*", "deprecated/*")
				})
				SyncInterval("1h")
				CacheTTL("24h")
			})
		})
	})
	t.Run("003/FromRegistry", func(t *testing.T) {
		corp := func() *expr.RegistryExpr {
			return Registry("corp", func() { URL("https://registry.corp.internal") })
		}
		// The three alternatives of the snippet, each in its own design:
		// two of them declare toolset "data-tools".
		t.Run("basic", func(t *testing.T) {
			// Basic usage - toolset name derived from registry toolset name
			root := mustRun(t, func() { Toolset(FromRegistry(corp(), "data-tools")) })
			if root.Toolset("data-tools") == nil {
				t.Fatal("no toolset data-tools")
			}
		})
		t.Run("explicit name", func(t *testing.T) {
			root := mustRun(t, func() { Toolset("my-tools", FromRegistry(corp(), "data-tools")) })
			if root.Toolset("my-tools") == nil {
				t.Fatal("no toolset my-tools")
			}
		})
		t.Run("configured", func(t *testing.T) {
			root := mustRun(t, func() {
				Toolset(FromRegistry(corp(), "data-tools"), func() {
					Version("1.2.3")
				})
			})
			if v := root.Toolset("data-tools").Version; v != "1.2.3" {
				t.Fatalf("version = %q", v)
			}
		})
	})
	t.Run("003/FromRegistry/Version", func(t *testing.T) {
		mustRun(t, func() {
			CorpRegistry := Registry("corp", func() { URL("https://registry.corp.internal") })
			Toolset("stable-tools", FromRegistry(CorpRegistry, "data-tools"), func() {
				Version("1.2.3")
			})
		})
	})
	// (project) The seed publishes an agent's export. An agent's export is
	// the agent run as the tool (agent-as-tool, a child workflow), which a
	// registry cannot carry, so the snippet is rejected with the fix:
	// export the toolset from the service, which publishes it through a
	// generated helper.
	t.Run("003/PublishTo", func(t *testing.T) {
		seedReject(t, func() {
			CorpRegistry := Registry("corp", func() { URL("https://registry.corp.internal") })
			LocalTools := Toolset("utils", func() {
				Tool("summarize", "Summarize text", func() {
					Args(func() { Attribute("text", String) })
					Return(func() { Attribute("summary", String) })
				})
			})
			Service("orchestrator", func() {
				Agent("data-agent", "Data processing agent", func() {
					Use(LocalTools)
					Export(LocalTools, func() {
						PublishTo(CorpRegistry)
						Tags("data", "etl")
					})
				})
			})
		}, `PublishTo: toolset "utils" is exported by agent "data-agent" of service "orchestrator"`,
			"which a registry cannot carry",
			`export it from service "orchestrator" instead (Export in the Service, outside the Agent)`)
		root := mustRun(t, func() {
			CorpRegistry := Registry("corp", func() { URL("https://registry.corp.internal") })
			LocalTools := Toolset("utils", func() {
				Tool("summarize", "Summarize text", func() {
					Args(func() { Attribute("text", String) })
					Return(func() { Attribute("summary", String) })
				})
			})
			Service("orchestrator", func() {
				Agent("data-agent", "Data processing agent", func() {
					Use(LocalTools)
				})
				Export(LocalTools, func() {
					PublishTo(CorpRegistry)
					Tags("data", "etl")
				})
			})
		})
		if len(root.Publications) != 1 || root.Publications[0].Export.Agent != nil {
			t.Fatalf("publications = %+v", root.Publications)
		}
	})
	// (project) As in "003/PublishTo": the complete example publishes the
	// agent's export, which is rejected; exported by the service, the same
	// design evaluates.
	t.Run("003/Exemple de registre complet", func(t *testing.T) {
		seedReject(t, func() { seedCompleteRegistryExample(true) },
			`PublishTo: toolset "analytics" is exported by agent "analyst" of service "orchestrator"`)
		mustRun(t, func() { seedCompleteRegistryExample(false) })
	})
}

// seedCompleteRegistryExample is seed 003's "Exemple de registre complet";
// agentExport keeps its Export in the agent, as the seed writes it,
// otherwise the service exports the toolset.
func seedCompleteRegistryExample(agentExport bool) {
	// Define registries
	CorpRegistry := seedCorpRegistry()
	AnthropicRegistry := Registry("anthropic", func() {
		Description("Anthropic MCP Registry")
		URL("https://registry.anthropic.com/v1")
		Federation(func() {
			Include("web-search", "code-execution")
			Exclude("experimental/*")
		})
		SyncInterval("1h")
		CacheTTL("24h")
	})
	// Consume toolsets from registries
	DataTools := Toolset(FromRegistry(CorpRegistry, "data-tools"), func() {
		Version("2.1.0")
	})
	SearchTools := Toolset(FromRegistry(AnthropicRegistry, "web-search"))
	// Local toolset to publish
	AnalyticsTools := Toolset("analytics", func() {
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
	// Export and publish to registry
	export := func() {
		Export(AnalyticsTools, func() {
			PublishTo(CorpRegistry)
			Tags("analytics", "data")
		})
	}
	Service("orchestrator", func() {
		Agent("analyst", "Data analysis agent", func() {
			Use(DataTools)
			Use(SearchTools)
			Use(AnalyticsTools)
			if agentExport {
				export()
			}
			RunPolicy(func() {
				DefaultCaps(MaxToolCalls(10))
				TimeBudget("5m")
			})
		})
		if !agentExport {
			export()
		}
	})
}
