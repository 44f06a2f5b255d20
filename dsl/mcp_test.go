package dsl_test

import (
	"slices"
	"strings"
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/expr"
)

// assistantMCP declares the seed's MCP server example: service "assistant"
// exposing MCP server "assistant-mcp" with a search tool, a readme
// resource and a greeting prompt.
func assistantMCP() {
	Service("assistant", func() {
		Description("MCP server example")
		MCP("assistant-mcp", "1.0.0", ProtocolVersion("2025-06-18"))
		JSONRPC(func() { POST("/mcp") })
		StaticPrompt("greeting", "Friendly greeting", "system", "You are a helpful assistant", "user", "Hello!")
		Method("search", func() {
			Description("Search documents")
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
			JSONRPC(func() {})
		})
		Method("get_readme", func() {
			Result(String)
			Resource("readme", "file:///README.md", "text/markdown")
			JSONRPC(func() {})
		})
	})
}

func TestMCPServerEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		assistantMCP()
		suite := Toolset(FromMCP("assistant", "assistant-mcp"))
		Service("orchestrator", func() {
			Agent("chat", func() { Use(suite, func() { Deferred("search") }) })
		})
	})
	srv := root.MCPServerOf("assistant")
	if srv == nil || srv.Name != "assistant-mcp" || srv.Version != "1.0.0" || srv.ProtocolVersion != "2025-06-18" {
		t.Fatalf("MCP server = %+v", srv)
	}
	if len(srv.Tools) != 1 || srv.Tools[0].Method.Name != "search" || srv.Tools[0].Description != "Search documents by query" {
		t.Fatalf("MCP tools = %+v", srv.Tools)
	}
	if len(srv.Resources) != 1 || srv.Resources[0].URI != "file:///README.md" || srv.Resources[0].MimeType != "text/markdown" {
		t.Fatalf("MCP resources = %+v", srv.Resources)
	}
	want := []expr.PromptMessage{{Role: "system", Content: "You are a helpful assistant"}, {Role: "user", Content: "Hello!"}}
	if len(srv.Prompts) != 1 || !slices.Equal(srv.Prompts[0].Messages, want) {
		t.Fatalf("MCP prompts = %+v", srv.Prompts)
	}
	ts := root.Toolset("assistant-mcp")
	if ts == nil || ts.Kind() != expr.ProviderMCP {
		t.Fatalf("FromMCP toolset = %+v", ts)
	}
	tool := ts.Tool("search")
	if tool == nil || tool.Args == nil || tool.Return == nil || tool.Title != "Search" {
		t.Fatalf("the FromMCP toolset carries the method's schemas: %+v", tool)
	}
	if got := root.Agents[0].Uses[0].DeferredTools(); !slices.Equal(got, []string{"search"}) {
		t.Fatalf("deferred MCP tools %v", got)
	}
	if len(root.Warnings) != 0 {
		t.Errorf("warnings = %q, want none: FromMCP toolsets and the agents using them generate code", root.Warnings)
	}
}

func TestExternalMCPToolsetEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		remote := Toolset("remote-search", FromExternalMCP("remote", "search"), func() {
			Tool("web_search", "Search the web", func() {
				Args(func() { Attribute("query", String) })
				Return(func() { Attribute("results", ArrayOf(String)) })
			})
		})
		Service("orchestrator", func() {
			Agent("helper", "", func() { Use(remote) })
		})
	})
	ts := root.Toolset("remote-search")
	if ts.Kind() != expr.ProviderExternalMCP || ts.Provider.Service != "remote" || ts.Provider.Toolset != "search" || len(ts.Tools) != 1 {
		t.Fatalf("external MCP toolset = %+v", ts)
	}
	if len(root.Warnings) != 0 {
		t.Errorf("warnings = %q, want none: FromExternalMCP toolsets and the agents using them generate code", root.Warnings)
	}
}

func TestMCPRules(t *testing.T) {
	t.Run("FromMCP names a service of the design", func(t *testing.T) {
		wantError(t, func() { Toolset(FromMCP("nowhere", "x")) }, `FromMCP: the design has no service "nowhere"`, "mcp_test.go:")
	})
	t.Run("FromMCP names a service that declares MCP", func(t *testing.T) {
		wantError(t, func() {
			Service("plain", func() { Method("ping", func() {}) })
			Toolset(FromMCP("plain", "plain-mcp"))
		}, `FromMCP: service "plain" does not declare MCP(name, version)`)
	})
	t.Run("FromMCP names the service's server", func(t *testing.T) {
		wantError(t, func() {
			assistantMCP()
			Toolset(FromMCP("assistant", "other"))
		}, `FromMCP: service "assistant" declares MCP server "assistant-mcp", not "other"`)
	})
	t.Run("a FromMCP toolset declares no tools of its own", func(t *testing.T) {
		wantError(t, func() {
			assistantMCP()
			Toolset(FromMCP("assistant", "assistant-mcp"), func() { Tool("search", "Search") })
		}, `Tool: "search" is declared on toolset "assistant-mcp", whose tools are the MCP tools of service "assistant"`)
	})
	t.Run("FromExternalMCP needs inline tools", func(t *testing.T) {
		wantError(t, func() { Toolset("remote", FromExternalMCP("remote", "search")) }, `FromExternalMCP: toolset "remote" declares no tools`, "declare each tool inline")
		wantError(t, func() { Toolset("remote", FromExternalMCP("remote", "search"), func() {}) }, `FromExternalMCP: toolset "remote" declares no tools`)
	})
	t.Run("Tool in a Method needs MCP", func(t *testing.T) {
		wantError(t, func() {
			Service("plain", func() {
				Method("search", func() { Tool("search", "Search") })
			})
		}, `Tool: "search": service "plain" does not declare MCP(name, version)`)
	})
	t.Run("Resource in a Method needs MCP", func(t *testing.T) {
		wantError(t, func() {
			Service("plain", func() {
				Method("readme", func() { Resource("readme", "file:///README.md", "text/markdown") })
			})
		}, `Resource: "readme": service "plain" does not declare MCP(name, version)`)
	})
	t.Run("StaticPrompt needs MCP", func(t *testing.T) {
		wantError(t, func() {
			Service("plain", func() { StaticPrompt("greeting", "Hi", "user", "Hello!") })
		}, `MCP: service "plain" declares MCP tools, resources or prompts but not MCP(name, version)`)
	})
	t.Run("StaticPrompt messages are role and content pairs", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() { MCP("m", "1"); StaticPrompt("greeting", "Hi", "user") })
		}, `StaticPrompt: "greeting": messages come in role and content pairs`)
		wantError(t, func() {
			Service("s", func() { MCP("m", "1"); StaticPrompt("greeting", "Hi", "robot", "beep") })
		}, `StaticPrompt: "greeting": "robot" is not a role`)
	})
	t.Run("MCP once per service", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() { MCP("a", "1"); MCP("b", "1") })
		}, `MCP: service "s" declares MCP twice`)
	})
	t.Run("MCP lives in a Service", func(t *testing.T) {
		wantError(t, func() { MCP("m", "1") }, `MCP: "m" must be declared in a Service`)
	})
	t.Run("MCP tool names and descriptions", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() {
				MCP("m", "1")
				Method("a", func() { Tool("find", "Find") })
				Method("b", func() { Tool("find", "Find again") })
				Method("c", func() { Tool("bare", "") })
			})
		}, `Tool: MCP tool "find" is declared twice in service "s"`, `Tool: MCP tool "bare" has no description`)
	})
	t.Run("a method is one MCP tool", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() {
				MCP("m", "1")
				Method("a", func() { Tool("find", "Find"); Tool("seek", "Seek") })
			})
		}, `Tool: method "a" is already MCP tool "find"`)
	})
	t.Run("Tool in a Method takes no DSL", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() {
				MCP("m", "1")
				Method("a", func() { Tool("find", "Find", func() {}) })
			})
		}, "in a Method, Tool takes a name and a description only")
	})
	t.Run("resource URIs and media types", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() {
				MCP("m", "1")
				Method("a", func() { Resource("doc", "README.md", "markdown") })
			})
		}, `Resource: "doc": "README.md" is not an absolute URI`, `Resource: "doc": "markdown" is not a media type`)
	})
	t.Run("protocol versions are revision dates", func(t *testing.T) {
		wantError(t, func() {
			Service("s", func() { MCP("m", "1", ProtocolVersion("latest")) })
		}, `ProtocolVersion: "latest" is not an MCP protocol revision`)
	})
}

// wantWarnings fails unless every fragment is in one of the root's
// code generation warnings.
func wantWarnings(t *testing.T, root *expr.RootExpr, fragments ...string) {
	t.Helper()
	all := strings.Join(root.Warnings, "\n")
	for _, f := range fragments {
		if !strings.Contains(all, f) {
			t.Errorf("warnings lack %q:\n%s", f, all)
		}
	}
}
