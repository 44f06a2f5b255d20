package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests run a real outside client against the server: the Node MCP
// SDK (@modelcontextprotocol/sdk, pinned in testdata/node/package.json),
// driven by testdata/node/client.mjs, over streamable HTTP and over stdio.

// nodeDir holds the Node client and its modules.
const nodeDir = "testdata/node"

// nodeScenario is what client.mjs plays: the same for both transports.
var nodeScenario = map[string]any{
	"search":  "read an invoice",
	"call":    map[string]any{"name": "lookup_invoice", "arguments": map[string]any{"number": 7}},
	"invalid": map[string]any{"name": "find", "arguments": map[string]any{"name": 7}},
	"outside": map[string]any{"name": "stage_refund", "arguments": map[string]any{"invoice": 1}},
	"waitMs":  5000,
}

// nodeCall is one tools/call as the Node client saw it: a result, or the
// JSON-RPC error that answered it instead.
type nodeCall struct {
	IsError    bool            `json:"isError"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
	RPCError   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"rpcError"`
}

// nodeRun is client.mjs's report.
type nodeRun struct {
	Error  string `json:"error"`
	Code   int    `json:"code"`
	Server struct {
		Name             string `json:"name"`
		ToolsListChanged bool   `json:"toolsListChanged"`
	} `json:"server"`
	Before           []string `json:"before"`
	Search           nodeCall `json:"search"`
	ListChanged      bool     `json:"listChanged"`
	ListChangedCount int      `json:"listChangedCount"`
	After            []string `json:"after"`
	Call             nodeCall `json:"call"`
	Invalid          nodeCall `json:"invalid"`
	Outside          nodeCall `json:"outside"`
}

func TestNodeClientOverHTTP(t *testing.T) {
	node := nodeClient(t)
	e := newEnv(t, nil)
	out, _ := runNode(t, node, "--http", e.http.URL, "--key", "ro-key")
	checkNodeRun(t, out)
	if got := e.runs.total(); got != 1 || e.runs.of("ops.lookup_invoice") != 1 {
		t.Fatalf("executions = %v, want lookup_invoice once: nothing runs for a bad payload or a call outside the tier", e.runs.runs)
	}
}

func TestNodeClientOverStdio(t *testing.T) {
	node := nodeClient(t)
	dir := t.TempDir()
	bin := buildStdioServer(t, dir)
	runsFile := filepath.Join(dir, "runs.json")
	out, stderr := runNode(t, node, "--stdio", bin, "--runs", runsFile)
	checkNodeRun(t, out)
	if strings.Contains(stderr, "DATA RACE") {
		t.Errorf("the stdio server reported a data race:\n%s", stderr)
	}
	if out.Server.Name != "quiver-stdio-test" {
		t.Errorf("server name = %q, want the stdio server's", out.Server.Name)
	}
	b, err := os.ReadFile(runsFile)
	if err != nil {
		t.Fatal(err)
	}
	var runs struct {
		Runs   map[string]int `json:"runs"`
		Exited bool           `json:"exited"`
	}
	if err := json.Unmarshal(b, &runs); err != nil {
		t.Fatalf("runs file %s: %v", b, err)
	}
	if !runs.Exited {
		t.Errorf("runs file %s: the server did not exit when the client closed its input", b)
	}
	if len(runs.Runs) != 1 || runs.Runs["ops.lookup_invoice"] != 1 {
		t.Fatalf("executions = %v, want lookup_invoice once: nothing runs for a bad payload or a call outside the tier", runs.Runs)
	}
}

func TestNodeClientWithoutCredentialIsRefused(t *testing.T) {
	node := nodeClient(t)
	e := newEnv(t, nil)
	for _, key := range []string{"", "guess"} {
		args := []string{"--http", e.http.URL}
		if key != "" {
			args = append(args, "--key", key)
		}
		out, _, err := runNodeErr(t, node, args...)
		if err == nil || out.Code != 401 || !strings.Contains(out.Error, "a valid bearer credential is required") {
			t.Errorf("key %q: %v (code %d), want the client to fail on the 401 naming the credential", key, err, out.Code)
		}
	}
	if e.runs.total() != 0 {
		t.Fatalf("executions = %v without a credential", e.runs.runs)
	}
}

// checkNodeRun checks what the Node client saw of the scenario as a
// read-only client: the search tool and the inline tool listed, the
// search finding the deferred tool and the list_changed notification
// following, the call answered with text and structured content, a bad
// payload and a call above the tier refused as errors the model can read.
func checkNodeRun(t *testing.T, out nodeRun) {
	t.Helper()
	if !out.Server.ToolsListChanged {
		t.Errorf("server capabilities: tools.listChanged not advertised")
	}
	if !slices.Equal(out.Before, []string{"find", "search_tools"}) {
		t.Errorf("tools before a search = %v, want [find search_tools]", out.Before)
	}
	if out.Search.IsError || !strings.Contains(out.Search.Text, `"name":"lookup_invoice"`) {
		t.Errorf("search = %+v, want lookup_invoice found", out.Search)
	}
	if !out.ListChanged {
		t.Errorf("no notifications/tools/list_changed within 5 s of the search")
	}
	if !slices.Contains(out.After, "lookup_invoice") {
		t.Errorf("tools after the search = %v, want lookup_invoice listed", out.After)
	}
	if out.Call.IsError || out.Call.RPCError != nil || out.Call.Text != `{"ok":true,"tool":"lookup_invoice"}` {
		t.Errorf("call = %+v", out.Call)
	}
	var structured map[string]any
	if err := json.Unmarshal(out.Call.Structured, &structured); err != nil || structured["ok"] != true || structured["tool"] != "lookup_invoice" || len(structured) != 2 {
		t.Errorf("structuredContent = %s (%v), want {ok:true, tool:lookup_invoice}", out.Call.Structured, err)
	}
	if !out.Invalid.IsError || !strings.Contains(out.Invalid.Text, "fix them and call again") {
		t.Errorf("bad payload = %+v, want a tool error the model can correct", out.Invalid)
	}
	refusal := out.Outside.Text
	if out.Outside.RPCError != nil {
		refusal = out.Outside.RPCError.Message
	}
	if !out.Outside.IsError && out.Outside.RPCError == nil || !strings.Contains(refusal, "outside your scope") {
		t.Errorf("call above the tier = %+v, want a refusal naming the scope", out.Outside)
	}
}

// runNode runs client.mjs with the scenario and args, and returns its
// report and standard error (where a stdio server writes); the test fails
// when the client does.
func runNode(t *testing.T, node string, args ...string) (nodeRun, string) {
	t.Helper()
	out, stderr, err := runNodeErr(t, node, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out, stderr
}

// runNodeErr runs client.mjs and returns its report, its standard error,
// and an error (with its output) when it failed. A stdio server inherits
// the environment: a race-enabled one is told not to linger a second at
// exit.
func runNodeErr(t *testing.T, node string, args ...string) (nodeRun, string, error) {
	t.Helper()
	scenario, err := json.Marshal(nodeScenario)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs", "--scenario", string(scenario)}, args...)...)
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("node client.mjs %s (%v):\n%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), stdout.Bytes())
	var out nodeRun
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return out, stderr.String(), fmt.Errorf("node client.mjs: %v; its output is not one JSON object (%v):\nstdout: %s\nstderr: %s", runErr, err, stdout.Bytes(), stderr.Bytes())
	}
	if runErr != nil || out.Error != "" {
		return out, stderr.String(), fmt.Errorf("node client.mjs: %v: %s\nstderr: %s", runErr, out.Error, stderr.Bytes())
	}
	return out, stderr.String(), nil
}

// buildStdioServer builds testdata/stdioserver into dir, with the race
// detector when this test binary has it (the build cache then holds the
// packages already).
func buildStdioServer(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "stdioserver")
	args := []string{"build", "-o", bin}
	if raceEnabled() {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./testdata/stdioserver")...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/stdioserver: %v\n%s", err, out)
	}
	t.Logf("go build ./testdata/stdioserver: %v", time.Since(start).Round(time.Millisecond))
	return bin
}

func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

var nodeSetup struct {
	once sync.Once
	node string
	err  error
}

// nodeClient returns the path of node once the Node client can run: node
// 20 or later on PATH, and the client's modules installed. ./scripts/test
// installs the modules; outside CI the first test missing them runs npm ci
// once itself. In CI (CI=true) missing modules fail the tests: the script
// was not run. -short skips these tests.
func nodeClient(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the tests with the Node MCP client start node")
	}
	nodeSetup.once.Do(func() { nodeSetup.node, nodeSetup.err = setUpNode() })
	if nodeSetup.err != nil {
		t.Fatal(nodeSetup.err)
	}
	return nodeSetup.node
}

const runTheScript = "run ./scripts/test, which installs them (npm ci --prefix mcp/testdata/node)"

func setUpNode() (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("node is not on PATH: the tests with the Node MCP client need Node 20 or later and its modules: install Node, then %s", runTheScript)
	}
	v, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", node, err)
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(v)), "v"), ".")
	if n, err := strconv.Atoi(major); err != nil || n < 20 {
		return "", fmt.Errorf("node %s: the Node MCP client needs Node 20 or later (package.json engines)", strings.TrimSpace(string(v)))
	}
	sdkPackage := filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdkPackage); err == nil {
		return node, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	missing := fmt.Sprintf("the Node MCP client's modules are not installed (%s is missing)", filepath.Join("mcp", sdkPackage))
	if os.Getenv("CI") == "true" {
		return "", fmt.Errorf("%s: %s", missing, runTheScript)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%s and npm is not on PATH to install them: install npm, then %s", missing, runTheScript)
	}
	abs, err := filepath.Abs(nodeDir)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, npm, "ci", "--prefix", abs, "--no-audit", "--no-fund").CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s and npm ci failed (%v): %s\n%s", missing, err, runTheScript, out)
	}
	if _, err := os.Stat(sdkPackage); err != nil {
		return "", fmt.Errorf("%s, still after npm ci: %s", missing, runTheScript)
	}
	return node, nil
}
