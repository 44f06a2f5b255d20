package codegen_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// quickstartMain wraps the Go blocks of an AGENTS_QUICKSTART.md into a
// program: the runtime and executor blocks open run, each agent's block
// gets a scope of its own (they declare the same names), and the
// commented-out provider clients are compiled in alternatives.
const quickstartMain = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/model/anthropic"
	"github.com/quiver-go/quiver/model/openai"
	"github.com/quiver-go/quiver/model/portable"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"

	"example.com/app/gen/agents/assistant/auditor"
	"example.com/app/gen/agents/assistant/chat"
	"example.com/app/gen/agents/assistant/federated"
	"example.com/app/gen/toolsets/notes"
	"example.com/app/gen/toolsets/records"
	"example.com/app/gen/toolsets/remotesearch"
)

func main() {
	if len(os.Args) > 1 {
		alternatives()
	}
	if err := run(); err != nil {
		fmt.Println("error:", err)
	}
}

func run() error {
BODY
	return nil
}

func alternatives() {
ALTERNATIVES
}
`

// TestQuickstartCompilesAndRuns: every identifier the generated
// quickstart names exists — its Go blocks, put together as the text says,
// build and vet against the generated packages and the real API — and the
// offline set-up it shows runs: the first agent, which defers tools,
// registers on portable search over the scripted model and answers.
func TestQuickstartCompilesAndRuns(t *testing.T) {
	files, _ := generate(t, agentsDesign)
	dir := t.TempDir()
	render(t, dir, files)
	md, err := os.ReadFile(filepath.Join(dir, "AGENTS_QUICKSTART.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(md), -1)
	if len(blocks) != 5 {
		t.Fatalf("the quickstart has %d Go blocks, want 5 (runtime, executors, three agents, the last connecting its MCP server):\n%s", len(blocks), md)
	}
	var body, alts strings.Builder
	commented := regexp.MustCompile(`(?m)^// (client, err := .*)$`)
	for i, b := range blocks {
		code := b[1]
		for _, m := range commented.FindAllStringSubmatch(code, -1) {
			alts.WriteString("\t{\n\t\t" + m[1] + "\n\t\t_, _ = client, err\n\t}\n")
		}
		if i >= 2 {
			code = "{\n" + code + "}\n"
		}
		body.WriteString(code)
	}
	if alts.Len() == 0 {
		t.Fatal("the quickstart names no provider adapter")
	}
	main := strings.NewReplacer("BODY", body.String(), "ALTERNATIVES", alts.String()).Replace(quickstartMain)
	out := buildAndRun(t, files, main)
	// The script plays one response: the first agent's run answers it, the
	// second finds the script exhausted.
	if !strings.HasPrefix(out, "Hello.\nerror: ") || !strings.Contains(out, "script exhausted") {
		t.Errorf("the quickstart program printed %q, want the first agent's answer", out)
	}
}
