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

// mcpDesign is seed 003's MCP server example: a service declaring MCP,
// a static prompt, a method exposed as a tool and two read as resources
// (text and bytes).
func mcpDesign() {
	Service("assistant", func() {
		MCP("assistant-mcp", "1.0.0", ProtocolVersion("2025-06-18"))
		StaticPrompt("greeting", "Friendly greeting", "system", "You are a helpful assistant", "user", "Hello!")
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
		Method("get_readme", func() {
			Result(String)
			Resource("readme", "file:///README.md", "text/markdown")
		})
		Method("get_logo", func() {
			Result(Bytes)
			Resource("logo", "file:///logo.png", "image/png")
		})
	})
}

func TestGoldenMCPServer(t *testing.T) {
	_, files := generateWithServices(t, mcpDesign)
	dir := t.TempDir()
	paths := render(t, dir, files)
	const server = "gen/assistant/mcpserver/mcp.go"
	if !slices.Contains(paths, server) {
		t.Fatalf("generated %v, want %s", paths, server)
	}
	compareGolden(t, dir, []string{server}, func(string) string {
		return filepath.Join("testdata", "mcp", "mcp.go.golden")
	})
}

func TestMCPServerPackageServes(t *testing.T) {
	svc, ours := generateWithServices(t, mcpDesign)
	main, err := os.ReadFile(filepath.Join("testdata", "mcpcheck", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out := buildAndRun(t, append(svc, ours...), string(main)); !strings.HasPrefix(out, "ok") {
		t.Errorf("check program printed %q", out)
	}
}

func TestMCPToolMethodShapesAreChecked(t *testing.T) {
	_, _, err := generateWithServicesErr(t, func() {
		Service("docs", func() {
			MCP("docs", "1")
			Method("lookup", func() {
				Payload(String)
				Result(String)
				Tool("lookup", "Look a word up")
			})
		})
	})
	if err == nil || !strings.Contains(err.Error(), `MCP tool "lookup"`) || !strings.Contains(err.Error(), "an object") {
		t.Fatalf("Generate = %v", err)
	}
}

func TestMCPResourceMethodShapesAreChecked(t *testing.T) {
	for name, design := range map[string]func(){
		"payload": func() {
			Service("docs", func() {
				MCP("docs", "1")
				Method("read", func() {
					Payload(String)
					Result(String)
					Resource("doc", "file:///doc.md", "text/markdown")
				})
			})
		},
		"object result": func() {
			Service("docs", func() {
				MCP("docs", "1")
				Method("read", func() {
					Result(func() { Attribute("text", String) })
					Resource("doc", "file:///doc.md", "text/markdown")
				})
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := generateWithServicesErr(t, design)
			if err == nil || !strings.Contains(err.Error(), `resource "doc"`) {
				t.Fatalf("Generate = %v", err)
			}
		})
	}
}
