package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/syncbuf"
	"github.com/quiver-go/quiver/internal/testbuild"
)

// These tests run quiver serve --upstreams in front of the outside MCP
// servers the MCP client's tests pin (mcp/testdata/upstream:
// @modelcontextprotocol/server-everything and server-filesystem) and the
// Go test server (mcp/internal/testserver, whose tools can change), and
// drive it with the Node MCP SDK client (mcp/testdata/node/steps.mjs).

// gatewayClientKey is the credential of the tests' client: tier staging.
const gatewayClientKey = "ide-key-8c1f2e"

// gatewaySetup starts quiver serve --upstreams with the three servers and
// the extra flags, and returns its MCP URL and the folder the filesystem
// server may write to.
func gatewaySetup(t *testing.T, extra ...string) (endpoint, files string, p *quiverProcess) {
	t.Helper()
	bin := quiverBinary(t)
	root := repoRoot(t)
	npm := filepath.Join(root, "mcp", "testdata", "upstream", "node_modules", ".bin")
	for _, server := range []string{"mcp-server-everything", "mcp-server-filesystem"} {
		if _, err := os.Stat(filepath.Join(npm, server)); err != nil {
			t.Fatalf("the npm MCP server %s is not installed (%v): run ./scripts/test, which installs it (npm ci --prefix mcp/testdata/upstream)", server, err)
		}
	}
	testserver := testbuild.Binary(t, "../../mcp/internal/testserver")
	dir := t.TempDir()
	files = filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o700); err != nil {
		t.Fatal(err)
	}
	upstreams := filepath.Join(dir, "upstreams.json")
	write(t, upstreams, fmt.Sprintf(`{"mcpServers": {
		"everything": {"command": %q, "exposure": "read_only"},
		"files": {"command": %q, "args": ["${GATEWAY_FILES}"], "exposure": "read_only",
		          "tools": {"write_file": {"exposure": "staging"}, "move_file": {"exposure": "full"}}},
		"changing": {"command": %q, "exposure": "read_only"}
	}}`, filepath.Join(npm, "mcp-server-everything"), filepath.Join(npm, "mcp-server-filesystem"), testserver), 0o600)
	keys := filepath.Join(dir, "keys.json")
	write(t, keys, `{"clients": [{"name": "ide", "key": "`+gatewayClientKey+`", "tier": "staging"}]}`, 0o600)
	env := append(userEnv(t.TempDir()), "GATEWAY_FILES="+files)
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--keys", keys, "--upstreams", upstreams}, extra...)
	p = startQuiverProcessEnv(t, bin, env, args...)
	banner := p.stdout.String()
	for _, want := range []string{"upstream  everything: 13 tools", "upstream  files: 14 tools", "upstream  changing: "} {
		if !strings.Contains(banner, want) {
			t.Fatalf("the banner does not say %q:\n%s\nstderr:\n%s", want, banner, p.stderr.String())
		}
	}
	return mcpURL(t, banner), files, p
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// nodeStep is what steps.mjs saw of one step.
type nodeStep struct {
	Names      []string        `json:"names"`
	Raw        string          `json:"raw"`
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
	RPCError   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"rpcError"`
	Changed bool `json:"changed"`
}

// playNode runs steps.mjs against url with the client key.
func playNode(t *testing.T, url string, steps []map[string]any) []nodeStep {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the gateway tests start node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the gateway tests need Node 20 or later; ./scripts/test says how to install it")
	}
	nodeDir := filepath.Join(repoRoot(t), "mcp", "testdata", "node")
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules")); err != nil {
		t.Fatalf("the Node MCP client's modules are missing: run ./scripts/test, which installs them (npm ci --prefix mcp/testdata/node)")
	}
	raw, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "steps.mjs", "--http", url, "--key", gatewayClientKey, "--steps", string(raw))
	cmd.Dir = nodeDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var out struct {
		Error string     `json:"error"`
		Steps []nodeStep `json:"steps"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || runErr != nil || out.Error != "" {
		t.Fatalf("node steps.mjs: %v %s\nstdout: %s\nstderr: %s", runErr, out.Error, stdout.Bytes(), stderr.Bytes())
	}
	for i, s := range out.Steps {
		t.Logf("step %d %v: %+v", i, steps[i], s)
	}
	return out.Steps
}

func list() map[string]any { return map[string]any{"op": "list"} }
func mark() map[string]any { return map[string]any{"op": "mark"} }
func waitChange(ms int) map[string]any {
	return map[string]any{"op": "waitListChanged", "ms": ms}
}
func callStep(name string, args any) map[string]any {
	return map[string]any{"op": "call", "name": name, "arguments": args}
}
func searchStep(query string) map[string]any {
	return callStep("search_tools", map[string]string{"query": query})
}

// failureCode is the code of a failure answer ({"error": code, …}).
func failureCode(text string) string {
	var f struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(text), &f)
	return f.Error
}

// TestGatewayFrontsOutsideMCPServersForTheNodeClient: the Node client
// lists search_tools alone, one search reaches each upstream, a found tool
// of each runs (the file the filesystem server writes is on disk), its
// list changes when an upstream's tools change, and a tool above its tier
// is refused.
func TestGatewayFrontsOutsideMCPServersForTheNodeClient(t *testing.T) {
	url, files, _ := gatewaySetup(t)
	path := filepath.Join(files, "hello.txt")
	steps := playNode(t, url, []map[string]any{
		list(), // 0
		mark(),
		searchStep("write a file"), // 2
		waitChange(10000),
		list(), // 4
		callStep("write_file", map[string]string{"path": path, "content": "written through quiver"}), // 5
		searchStep("add two numbers"),                              // 6
		callStep("get-sum", map[string]int{"a": 2, "b": 3}),        // 7
		searchStep("remove a tool"),                                // 8
		searchStep("Answers plain text"),                           // 9
		map[string]any{"op": "mark", "quietMs": 1000},              // the discovery's notifications are in
		callStep("remove_tool", map[string]string{"name": "text"}), // 11
		{"op": "waitUnlisted", "name": "text", "ms": 15000},        // 12
		callStep("move_file", map[string]string{"source": path, "destination": filepath.Join(files, "b.txt")}), // 13
		searchStep("environment variables and file info"),                                                      // 14
	})
	if !slices.Equal(steps[0].Names, []string{"search_tools"}) {
		t.Fatalf("first listing = %v, want search_tools alone", steps[0].Names)
	}
	if !strings.Contains(steps[2].Text, `"name":"write_file"`) || !steps[3].Changed || !slices.Contains(steps[4].Names, "write_file") {
		t.Fatalf("the search for write_file: %+v; list_changed %v; listing %v", steps[2], steps[3].Changed, steps[4].Names)
	}
	if steps[5].IsError {
		t.Fatalf("write_file = %s", steps[5].Text)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "written through quiver" {
		t.Fatalf("the file the filesystem server wrote: %q, %v", got, err)
	}
	if !strings.Contains(steps[6].Text, `"name":"get-sum"`) || steps[7].IsError || !strings.Contains(steps[7].Text, "5") {
		t.Fatalf("everything's get-sum: search %s; call %+v", steps[6].Text, steps[7])
	}
	if !strings.Contains(steps[8].Text, `"name":"remove_tool"`) || !strings.Contains(steps[9].Text, `"name":"text"`) {
		t.Fatalf("the test server's tools were not found: %s; %s", steps[8].Text, steps[9].Text)
	}
	if steps[11].IsError {
		t.Fatalf("remove_tool = %+v", steps[11])
	}
	if slices.Contains(steps[12].Names, "text") || !slices.Contains(steps[12].Names, "write_file") || !steps[12].Changed {
		t.Fatalf("after the upstream removed text: listing %v, list_changed since %v", steps[12].Names, steps[12].Changed)
	}
	if !steps[13].IsError || failureCode(steps[13].Text) != "not_permitted" {
		t.Fatalf("move_file (full) for a staging client = %+v, want not_permitted", steps[13])
	}
	if _, err := os.Stat(filepath.Join(files, "b.txt")); err == nil {
		t.Fatal("move_file ran")
	}
	// One search, one catalog: its answer holds a tool of each server.
	if !strings.Contains(steps[14].Text, `"name":"get-env"`) || !strings.Contains(steps[14].Text, `"name":"get_file_info"`) {
		t.Fatalf("a search across both servers = %s, want everything's get-env and the filesystem's get_file_info", steps[14].Text)
	}
}

// TestGatewayCallToolModeKeepsTheListByteIdentical: with --call-tool a
// client that never lists again finds a tool and calls it through
// call_tool, and every tools/list answer of the session is the same bytes.
func TestGatewayCallToolModeKeepsTheListByteIdentical(t *testing.T) {
	url, files, _ := gatewaySetup(t, "--call-tool")
	path := filepath.Join(files, "via-call-tool.txt")
	steps := playNode(t, url, []map[string]any{
		list(), // 0
		mark(),
		searchStep("write a file"), // 2
		list(),                     // 3
		callStep("call_tool", map[string]any{"name": "write_file", "arguments": map[string]string{"path": path, "content": "via call_tool"}}), // 4
		list(), // 5
		callStep("call_tool", map[string]any{"name": "get-sum", "arguments": map[string]int{"a": 1, "b": 2}}),                                      // 6
		callStep("call_tool", map[string]any{"name": "move_file", "arguments": map[string]string{"source": path, "destination": path + ".moved"}}), // 7
		waitChange(1500),
		list(), // 9
	})
	if !slices.Equal(sorted(steps[0].Names), []string{"call_tool", "search_tools"}) {
		t.Fatalf("listing = %v, want call_tool and search_tools", steps[0].Names)
	}
	for _, i := range []int{3, 5, 9} {
		if steps[i].Raw != steps[0].Raw {
			t.Fatalf("tools/list answer %d differs from the first:\n%s\n%s", i, steps[i].Raw, steps[0].Raw)
		}
	}
	if !strings.Contains(steps[2].Text, `"name":"write_file"`) || !strings.Contains(steps[2].Text, `"inputSchema"`) {
		t.Fatalf("the search answer = %s, want write_file with its inputSchema", steps[2].Text)
	}
	if steps[4].IsError {
		t.Fatalf("call_tool write_file = %s", steps[4].Text)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "via call_tool" {
		t.Fatalf("the file written through call_tool: %q, %v", got, err)
	}
	if !steps[6].IsError || failureCode(steps[6].Text) != "not_in_active_set" || !strings.Contains(steps[6].Text, "search_tools(query='get-sum')") {
		t.Fatalf("call_tool of a tool not found yet = %+v, want not_in_active_set naming the search", steps[6])
	}
	if !steps[7].IsError || failureCode(steps[7].Text) != "not_permitted" {
		t.Fatalf("call_tool of a tool above the tier = %+v, want not_permitted", steps[7])
	}
	if steps[8].Changed {
		t.Fatal("a list_changed notification arrived in --call-tool mode")
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func TestServeUpstreamsUsageErrors(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open.json")
	write(t, open, `{"mcpServers": {"a": {"command": "x"}}}`, 0o600)
	if err := os.Chmod(open, 0o666); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.json")
	write(t, broken, "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n}}", 0o600)
	unset := filepath.Join(dir, "unset.json")
	write(t, unset, `{"mcpServers": {"a": {"command": "x", "env": {"T": "${QUIVER_TEST_NEVER_SET}"}}}}`, 0o600)
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"serve", "--undeclared", "admin"}, `--undeclared "admin": give the tier`, exitUsage},
		{[]string{"serve", "--call-tool", "--expose-all"}, "pick one", exitUsage},
		{[]string{"serve", "--data", t.TempDir(), "--upstreams", filepath.Join(dir, "missing.json")}, "missing.json", exitError},
		{[]string{"serve", "--data", t.TempDir(), "--upstreams", open}, "chmod go-w", exitError},
		{[]string{"serve", "--data", t.TempDir(), "--upstreams", broken}, "line 2", exitError},
		{[]string{"serve", "--data", t.TempDir(), "--upstreams", unset}, "QUIVER_TEST_NEVER_SET is not set", exitError},
	} {
		r := quiver(t, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %d and %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
}

// TestServeStdioWithUpstreams: quiver serve --stdio --upstreams, as Claude
// Desktop starts it, serves the upstream's tools over stdio, gives
// undeclared tools the --undeclared tier, and says nothing of the secrets
// in the file — not in the banner, not in the failure of an upstream whose
// command holds one.
func TestServeStdioWithUpstreams(t *testing.T) {
	bin := quiverBinary(t)
	testserver := testbuild.Binary(t, "../../mcp/internal/testserver")
	dir := t.TempDir()
	upstreams := filepath.Join(dir, "upstreams.json")
	const secret = "gw-s3cret-91f0a7"
	write(t, upstreams, fmt.Sprintf(`{"mcpServers": {
		"tools": {"command": %q, "env": {"API_TOKEN": "${GATEWAY_SECRET}"}},
		"broken": {"command": "/nonexistent/${GATEWAY_SECRET}/server"}
	}}`, testserver), 0o600)
	cmd := exec.Command(bin, "serve", "--stdio", "--data", filepath.Join(dir, "data"), "--upstreams", upstreams, "--undeclared", "read_only")
	cmd.Env = append(userEnv(t.TempDir()), "GATEWAY_SECRET="+secret)
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	s := connectMCP(t, &sdk.CommandTransport{Command: cmd})
	if text, isErr := s.call(t, "search_tools", map[string]string{"query": "echo the text"}); isErr || !strings.Contains(text, `"name":"echo"`) {
		t.Fatalf("search = %s", text)
	}
	if text, isErr := s.call(t, "echo", map[string]string{"text": "over stdio"}); isErr || !strings.Contains(text, `"text":"over stdio"`) {
		t.Fatalf("echo = %s (error %v)", text, isErr)
	}
	_ = s.Close()
	_ = cmd.Wait()
	banner := stderr.String()
	if !strings.Contains(banner, "upstream  broken: FAILED") || !strings.Contains(banner, "[redacted]") || !strings.Contains(banner, "upstream  tools: ") {
		t.Fatalf("the banner does not report the upstreams:\n%s", banner)
	}
	if strings.Contains(banner, secret) {
		t.Fatalf("the secret was printed:\n%s", banner)
	}
}

// TestServeRemovesWhatAnEarlierRunPublished: the example toolset an
// earlier quiver serve published on the data folder leaves the catalog
// when quiver serve --upstreams starts there, and a server taken out of
// the file leaves it at the next start.
func TestServeRemovesWhatAnEarlierRunPublished(t *testing.T) {
	testserver := testbuild.Binary(t, "../../mcp/internal/testserver")
	data := t.TempDir()
	first := startServing(t, "serve", "--addr", "127.0.0.1:0", "--data", data)
	first.stop()
	two := filepath.Join(t.TempDir(), "two.json")
	write(t, two, fmt.Sprintf(`{"mcpServers": {"a": {"command": %q}, "b": {"command": %q}}}`, testserver, testserver), 0o600)
	second := startServing(t, "serve", "--addr", "127.0.0.1:0", "--data", data, "--upstreams", two)
	if !strings.Contains(second.stdout.String(), "removed   workspace: published by an earlier quiver serve") {
		t.Fatalf("the banner does not say the example toolset was removed:\n%s", second.stdout.String())
	}
	ls := quiver(t, "registry", "ls", "--data", data).mustSucceed(t)
	if strings.Contains(ls.stdout, "workspace") || !strings.Contains(ls.stdout, "\na ") || !strings.Contains(ls.stdout, "\nb ") {
		t.Fatalf("registry ls while --upstreams serves a and b:\n%s", ls.stdout)
	}
	second.stop()
	one := filepath.Join(t.TempDir(), "one.json")
	write(t, one, fmt.Sprintf(`{"mcpServers": {"a": {"command": %q}}}`, testserver), 0o600)
	third := startServing(t, "serve", "--addr", "127.0.0.1:0", "--data", data, "--upstreams", one)
	if !strings.Contains(third.stdout.String(), "removed   b:") {
		t.Fatalf("the banner does not say b was removed:\n%s", third.stdout.String())
	}
	if ls := quiver(t, "registry", "ls", "--data", data).mustSucceed(t); strings.Contains(ls.stdout, "\nb ") {
		t.Fatalf("b is still listed:\n%s", ls.stdout)
	}
}

// TestServeStdioAttachesToAGatewayAsTheBannerSays: the banner of quiver
// serve --upstreams tells a stdio client to start quiver serve --stdio
// with the MCP flags; started so, it attaches and calls an upstream's tool.
func TestServeStdioAttachesToAGatewayAsTheBannerSays(t *testing.T) {
	bin := quiverBinary(t)
	testserver := testbuild.Binary(t, "../../mcp/internal/testserver")
	dir := t.TempDir()
	upstreams := filepath.Join(dir, "upstreams.json")
	write(t, upstreams, fmt.Sprintf(`{"mcpServers": {"tools": {"command": %q}}}`, testserver), 0o600)
	data := filepath.Join(dir, "data")
	http := startQuiverProcess(t, bin, "serve", "--addr", "127.0.0.1:0", "--data", data, "--upstreams", upstreams, "--undeclared", "read_only")
	banner := http.stdout.String()
	if !strings.Contains(banner, `"serve", "--stdio", "--data", `+jsonString(data)+`, "--undeclared", "read_only"]`) {
		t.Fatalf("the banner's Claude Desktop line lacks the MCP flags:\n%s", banner)
	}
	cmd := exec.Command(bin, "serve", "--stdio", "--data", data, "--undeclared", "read_only")
	cmd.Env = userEnv(t.TempDir())
	s := connectMCP(t, &sdk.CommandTransport{Command: cmd})
	if text, isErr := s.call(t, "search_tools", map[string]string{"query": "echo the text"}); isErr || !strings.Contains(text, `"name":"echo"`) {
		t.Fatalf("search through the attached stdio server = %s", text)
	}
	if text, isErr := s.call(t, "echo", map[string]string{"text": "attached"}); isErr || !strings.Contains(text, `"text":"attached"`) {
		t.Fatalf("echo = %s (error %v)", text, isErr)
	}
}
