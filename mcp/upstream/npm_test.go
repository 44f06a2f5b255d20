package upstream_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/mcp/upstream"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
)

// npmDir holds the outside MCP servers, pinned and locked
// (package.json, package-lock.json); ./scripts/test installs them.
const npmDir = "../testdata/upstream"

const npmInstall = "npm ci --prefix mcp/testdata/upstream --no-audit --no-fund (./scripts/test runs it)"

// npmServer returns the path of an installed server's executable, failing
// the test, naming the install command, when it is missing. -short skips.
func npmServer(t *testing.T, bin string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the tests with the npm MCP servers start node")
	}
	path, err := filepath.Abs(filepath.Join(npmDir, "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the npm MCP server %s is not installed (%v): install it with %s", bin, err, npmInstall)
	}
	return path
}

// run runs one call of ts's tool through the tool-call pipeline, the
// payload checked against the compiled spec first.
func run(t *testing.T, ctx context.Context, ts *upstream.Toolset, tool, payload string) toolcall.Outcome {
	t.Helper()
	id := tools.JoinIdent(ts.Name, tool)
	for _, s := range ts.Specs {
		if s.Name == id {
			out, err := toolcall.Run(ctx, ts.Executor, &toolcall.Call{Ident: id, Spec: s, Payload: json.RawMessage(payload)}, toolcall.Options{})
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			return out
		}
	}
	t.Fatalf("toolset %s has no tool %s", ts.Name, tool)
	return toolcall.Outcome{}
}

// TestEverything runs @modelcontextprotocol/server-everything, the
// protocol's reference test server: all its tools compile, text and
// structured results, an image, its argument and unknown-tool errors,
// the roots it asks for, and the tools it adds once it knows the client
// (tools/list_changed).
func TestEverything(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	changed := make(chan struct{}, 10)
	c, err := upstream.Connect(context.Background(), "everything", upstream.Config{
		Command:        bin,
		Handlers:       upstream.Handlers{Roots: func(context.Context) ([]string, error) { return []string{"file:///srv/work"}, nil }},
		OnToolsChanged: func() { changed <- struct{}{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := withTimeout(t, 60*time.Second)
	// The server registers its tools that depend on the client's
	// capabilities after initialize, and says so.
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed after initialize")
	}

	ts, err := c.ListedToolset(ctx, "everything")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Skipped) != 0 {
		t.Fatalf("skipped %v", ts.Skipped)
	}
	byName := map[string]tools.ToolSpec{}
	for _, s := range ts.Specs {
		byName[s.Name.Tool()] = s
	}
	for _, want := range []string{"echo", "get-sum", "get-structured-content", "get-tiny-image", "get-roots-list"} {
		if _, ok := byName[want]; !ok {
			t.Fatalf("no %s in %d specs", want, len(ts.Specs))
		}
	}
	if !strings.Contains(string(byName["get-structured-content"].Result.Schema), "temperature") {
		t.Fatalf("get-structured-content result schema %s", byName["get-structured-content"].Result.Schema)
	}

	wantOutcome(t, run(t, ctx, ts, "echo", `{"message":"hi"}`), `{"text":"Echo: hi"}`)
	wantOutcome(t, run(t, ctx, ts, "get-sum", `{"a":1,"b":2}`), `{"text":"The sum of 1 and 2 is 3."}`)
	wantOutcome(t, run(t, ctx, ts, "get-structured-content", `{"location":"Chicago"}`), `{"conditions":"Light rain / drizzle","humidity":82,"temperature":36}`)
	out := run(t, ctx, ts, "get-tiny-image", `{}`)
	if out.Failure != nil || !strings.Contains(string(out.Result), `"type":"image"`) || !strings.Contains(string(out.Result), `"mimeType":"image/png"`) {
		t.Fatalf("get-tiny-image: %.200s %v", out.Result, out.Failure)
	}
	out = run(t, ctx, ts, "get-roots-list", `{}`)
	if out.Failure != nil || !strings.Contains(string(out.Result), "file:///srv/work") {
		t.Fatalf("get-roots-list: %s %v", out.Result, out.Failure)
	}

	// The pipeline refuses a payload the compiled schema refuses; sent
	// anyway, the server's own validation error is a tool_error.
	if out := run(t, ctx, ts, "get-sum", `{"a":"x","b":2}`); out.Failure == nil || out.Failure.Code != toolcall.KindInvalidPayload {
		t.Fatalf("get-sum with a string: %s %v", out.Result, out.Failure)
	}
	wantFailure(t, call(t, ctx, c, "everything", "get-sum", `{"a":"x"}`), toolcall.KindToolError, "get-sum", "Input validation error")
	wantFailure(t, call(t, ctx, c, "everything", "no-such-tool", `{}`), toolcall.KindToolError, "no-such-tool", "not found")

	// Listing is one page here, and lists what the toolset compiled.
	listed, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != len(ts.Specs) {
		t.Fatalf("listed %d tools, compiled %d", len(listed), len(ts.Specs))
	}
}

// wantOutcome checks that a pipeline outcome succeeded with want.
func wantOutcome(t *testing.T, out toolcall.Outcome, want string) {
	t.Helper()
	wantResult(t, &toolcall.Result{Result: out.Result, Failure: out.Failure}, want)
}

// TestFilesystem runs @modelcontextprotocol/server-filesystem on a
// temporary folder: a file written through the executor is on disk, and
// reads back; a path outside the folder is the server's error.
func TestFilesystem(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := upstream.Connect(context.Background(), "files", upstream.Config{Command: bin, Args: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := withTimeout(t, 60*time.Second)
	ts, err := c.ListedToolset(ctx, "files")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Skipped) != 0 {
		t.Fatalf("skipped %v", ts.Skipped)
	}
	path := filepath.Join(dir, "note.txt")
	payload, _ := json.Marshal(map[string]string{"path": path, "content": "written through quiver\n"})
	if out := run(t, ctx, ts, "write_file", string(payload)); out.Failure != nil {
		t.Fatalf("write_file: %v", out.Failure)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "written through quiver\n" {
		t.Fatalf("on disk: %q, %v", b, err)
	}
	payload, _ = json.Marshal(map[string]string{"path": path})
	out := run(t, ctx, ts, "read_text_file", string(payload))
	if out.Failure != nil || !strings.Contains(string(out.Result), "written through quiver") {
		t.Fatalf("read_text_file: %s %v", out.Result, out.Failure)
	}
	payload, _ = json.Marshal(map[string]string{"path": filepath.Join(filepath.Dir(dir), "outside.txt"), "content": "no"})
	out = run(t, ctx, ts, "write_file", string(payload))
	if out.Failure == nil || out.Failure.Code != toolcall.KindToolError || !strings.Contains(strings.ToLower(out.Failure.Message), "access denied") {
		t.Fatalf("write outside the folder: %s %v", out.Result, out.Failure)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.txt")); err == nil {
		t.Fatal("the file outside the folder was written")
	}
}
