package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/tools"
)

// Connect to a stdio server, compile what it lists into a runtime-defined
// toolset, and see what was left out. (Compiled, not run: it starts npx.)
func ExampleConnect() {
	ctx := context.Background()
	c, err := upstream.Connect(ctx, "files", upstream.Config{
		Command:     "npx",
		Args:        []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv/work"},
		CallTimeout: 30 * time.Second,
	})
	if err != nil {
		log.Fatal(err) // a server that never initializes: named, with the timeout
	}
	defer c.Close()
	ts, err := c.ListedToolset(ctx, "files")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range ts.Skipped {
		fmt.Printf("left out %s: %s\n", s.Name, s.Reason)
	}
	// Register it: rt.RegisterToolset(runtime.ToolsetRegistration{Name:
	// ts.Name, Specs: ts.Specs, Executor: ts.Executor}).
}

// Bind a design's declared tools to a server over streamable HTTP; a
// schema the server changed refuses the toolset with a report per tool.
// (Compiled, not run.)
func ExampleClient_DeclaredToolset() {
	ctx := context.Background()
	c, err := upstream.Connect(ctx, "tickets", upstream.Config{URL: "https://mcp.example.com/mcp", BearerToken: "…"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	declared := declaredSpecs() // a FromExternalMCP toolset's generated specs
	_, err = c.DeclaredToolset(ctx, "tickets", declared)
	var drift *upstream.DriftError
	if errors.As(err, &drift) {
		log.Fatal(drift) // every tool that differs, with JSON pointers and both values
	}
}

func declaredSpecs() []tools.ToolSpec { return nil }
