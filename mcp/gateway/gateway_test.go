package gateway_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/loopback"
	"github.com/quiver-go/quiver/mcp/gateway"
	"github.com/quiver-go/quiver/tools"
)

// twoServers is a configuration of two test servers: alpha, read_only;
// beta, undeclared but for its echo, staging.
func twoServers(bin string) string {
	return fmt.Sprintf(`{"mcpServers": {
		"alpha": {"command": %q, "exposure": "read_only"},
		"beta":  {"command": %q, "tools": {"echo": {"exposure": "staging"}}, "type": "stdio"}
	}}`, bin, bin)
}

// TestEachServerIsAToolsetSearchedAndCalledThroughTheRegistry: both
// servers are published, their tools are found by one search across both
// and called, each server's tier applies, and an undeclared tool is served
// to no one.
func TestEachServerIsAToolsetSearchedAndCalledThroughTheRegistry(t *testing.T) {
	bin := testServer(t)
	s := startStack(t, twoServers(bin), noEnv, "")
	for _, name := range []string{"alpha", "beta"} {
		if st := s.status(t, name); st.State != gateway.Serving || st.Tools == 0 || !strings.HasPrefix(st.Revision, "gw-") {
			t.Fatalf("%s: %+v\nlog:\n%s", name, st, s.log.String())
		}
	}
	c := s.connect(t)
	if got := c.names(t); !slices.Equal(got, []string{"search_tools"}) {
		t.Fatalf("tools = %v, want the search tool only", got)
	}
	c.find(t, "echo", "alpha_echo")
	text, isErr := c.call(t, "alpha_echo", map[string]string{"text": "through the gateway"})
	if isErr || !strings.Contains(text, `"text":"through the gateway"`) {
		t.Fatalf("alpha_echo = %s (error %v)", text, isErr)
	}
	// beta's echo needs staging; this client is read_only: the search does
	// not show it, and a call is refused.
	if text, _ := c.call(t, "search_tools", map[string]string{"query": "beta_echo"}); strings.Contains(text, `"name":"beta_echo"`) {
		t.Fatalf("a read_only client found beta_echo: %s", text)
	}
	if text, isErr := c.call(t, "beta_echo", map[string]string{"text": "x"}); !isErr || failureKind(text) == "" || failureKind(text) == "ok" {
		t.Fatalf("beta_echo for read_only = %s (error %v), want a refusal", text, isErr)
	}
	// beta's other tools declare no tier and --undeclared is not given:
	// nobody gets them.
	if text, _ := c.call(t, "search_tools", map[string]string{"query": "pid"}); strings.Contains(text, `"name":"beta_pid"`) {
		t.Fatalf("an undeclared tool was served: %s", text)
	}
}

// TestUndeclaredToolsGetTheConfiguredTier: with Undeclared read_only, the
// undeclared tools of beta are served.
func TestUndeclaredToolsGetTheConfiguredTier(t *testing.T) {
	s := startStack(t, twoServers(testServer(t)), noEnv, tools.ExposureReadOnly)
	c := s.connect(t)
	c.find(t, "beta_pid", "beta_pid")
	if text, isErr := c.call(t, "beta_pid", map[string]any{}); isErr || !strings.Contains(text, `"pid"`) {
		t.Fatalf("beta_pid = %s (error %v)", text, isErr)
	}
}

// TestListChangedRepublishesTheToolset: the server's list_changed makes a
// new revision with the added tool, and the client's search finds it.
func TestListChangedRepublishesTheToolset(t *testing.T) {
	s := startStack(t, twoServers(testServer(t)), noEnv, "")
	before := s.status(t, "alpha")
	c := s.connect(t)
	c.find(t, "alpha_add_tool", "alpha_add_tool")
	if text, isErr := c.call(t, "alpha_add_tool", map[string]any{}); isErr {
		t.Fatalf("add_tool = %s", text)
	}
	after := s.waitStatus(t, "alpha", "republished", func(st gateway.Status) bool {
		return st.Revision != before.Revision && st.State == gateway.Serving
	})
	if after.Tools != before.Tools+1 {
		t.Fatalf("tools %d → %d, want one more", before.Tools, after.Tools)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, _ := c.call(t, "search_tools", map[string]string{"query": "added"})
		if strings.Contains(text, `"name":"added"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the added tool was never found: %s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAServerThatFailsToStartIsRetriedWhileTheOthersServe: a server whose
// command is missing is reported failed, the other serves, and once the
// command exists the retry publishes it.
func TestAServerThatFailsToStartIsRetriedWhileTheOthersServe(t *testing.T) {
	bin := testServer(t)
	late := filepath.Join(t.TempDir(), "late-server")
	file := fmt.Sprintf(`{"mcpServers": {"alpha": {"command": %q, "exposure": "read_only"}, "late": {"command": %q, "exposure": "read_only"}}}`, bin, late)
	s := startStack(t, file, noEnv, "")
	if st := s.status(t, "late"); st.State != gateway.Failed || st.Err == "" || st.Retry.IsZero() {
		t.Fatalf("late = %+v, want failed with its error and its retry", st)
	}
	c := s.connect(t)
	// alone in the catalog, alpha's tools go by their bare names
	c.find(t, "echo", "echo")
	if text, isErr := c.call(t, "echo", map[string]string{"text": "still serving"}); isErr {
		t.Fatalf("echo = %s", text)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(late, data, 0o700); err != nil {
		t.Fatal(err)
	}
	s.waitStatus(t, "late", "served after its retry", func(st gateway.Status) bool { return st.State == gateway.Serving })
	c.find(t, "late_echo", "late_echo")
	if text, isErr := c.call(t, "late_echo", map[string]string{"text": "late"}); isErr {
		t.Fatalf("late_echo = %s", text)
	}
}

// TestAServerKilledMidCallIsRestarted: the call in flight fails with
// outcome_unknown, the other server keeps serving, the server is started
// again and the next call succeeds.
func TestAServerKilledMidCallIsRestarted(t *testing.T) {
	s := startStack(t, twoServers(testServer(t)), noEnv, tools.ExposureReadOnly)
	c := s.connect(t)
	c.find(t, "alpha_pid", "alpha_pid")
	text, isErr := c.call(t, "alpha_pid", map[string]any{})
	var pid struct {
		PID int `json:"pid"`
	}
	if isErr || json.Unmarshal([]byte(text), &pid) != nil || pid.PID == 0 {
		t.Fatalf("alpha_pid = %s", text)
	}
	c.find(t, "alpha_hang", "alpha_hang")
	c.find(t, "beta_pid", "beta_pid")
	hung := make(chan string, 1)
	go func() {
		text, _ := c.call(t, "alpha_hang", map[string]any{})
		hung <- text
	}()
	time.Sleep(300 * time.Millisecond) // the call reaches the server
	if err := syscall.Kill(pid.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case text := <-hung:
		if failureKind(text) != "outcome_unknown" {
			t.Fatalf("the call in flight = %s, want outcome_unknown", text)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call in flight never ended")
	}
	if text, isErr := c.call(t, "beta_pid", map[string]any{}); isErr {
		t.Fatalf("beta_pid while alpha restarts = %s", text)
	}
	s.waitStatus(t, "alpha", "restarted", func(st gateway.Status) bool { return st.Restarts >= 1 && st.State == gateway.Serving })
	text, isErr = c.call(t, "alpha_pid", map[string]any{})
	var again struct {
		PID int `json:"pid"`
	}
	if isErr || json.Unmarshal([]byte(text), &again) != nil || again.PID == 0 || again.PID == pid.PID {
		t.Fatalf("alpha_pid after the restart = %s (the killed server was %d)", text, pid.PID)
	}
}

// TestAtMostMaxConcurrentCallsRunAtOnce: with maxConcurrentCalls 1, a call
// waits while another runs on the same server, and runs once it ended.
func TestAtMostMaxConcurrentCallsRunAtOnce(t *testing.T) {
	bin := testServer(t)
	file := fmt.Sprintf(`{"mcpServers": {"alpha": {"command": %q, "exposure": "read_only", "maxConcurrentCalls": 1}}}`, bin)
	s := startStack(t, file, noEnv, "")
	c := s.connect(t)
	c.find(t, "sleep", "sleep")
	c.find(t, "echo", "echo")
	var mu sync.Mutex
	var order []string
	done := func(name string) {
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if text, isErr := c.call(t, "sleep", map[string]int{"ms": 1000}); isErr {
			t.Errorf("sleep = %s", text)
		}
		done("sleep")
	}()
	time.Sleep(200 * time.Millisecond) // sleep holds the only slot
	text, isErr := c.call(t, "echo", map[string]string{"text": "after"})
	done("echo")
	wg.Wait()
	if isErr {
		t.Fatalf("echo = %s", text)
	}
	if !slices.Equal(order, []string{"sleep", "echo"}) {
		t.Fatalf("order = %v: echo ran while sleep held the server's only slot", order)
	}
}

// TestAStreamableHTTPServerWithItsHeaders: a "url" server gets the
// headers of the file, their variables expanded, and serves.
func TestAStreamableHTTPServerWithItsHeaders(t *testing.T) {
	addr, err := loopback.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	const token = "http-s3cret-token-55"
	cmd := exec.Command(testServer(t), "-http", addr, "-token", token, "-header", "X-Team=tools")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.HasPrefix(line, "listening ") {
		t.Fatalf("the test server did not say it listens: %q, %v", line, err)
	}
	file := fmt.Sprintf(`{"mcpServers": {"web": {"url": "http://%s/mcp", "headers": {"Authorization": "Bearer ${WEB_TOKEN}", "X-Team": "${TEAM:-tools}"}, "exposure": "read_only"}}}`, addr)
	s := startStack(t, file, env(map[string]string{"WEB_TOKEN": token}), "")
	if st := s.status(t, "web"); st.State != gateway.Serving {
		t.Fatalf("web = %+v\nlog:\n%s", st, s.log.String())
	}
	c := s.connect(t)
	c.find(t, "echo", "echo")
	if text, isErr := c.call(t, "echo", map[string]string{"text": "over http"}); isErr || !strings.Contains(text, `"text":"over http"`) {
		t.Fatalf("echo = %s (error %v)", text, isErr)
	}
}

// TestAServerThatDiesAtStartSaysWhy: the end of a stdio server's standard
// error is in its failure, secrets scrubbed.
func TestAServerThatDiesAtStartSaysWhy(t *testing.T) {
	const secret = "stderr-s3cret-4417"
	file := `{"mcpServers": {
		"alpha": {"command": "` + testServer(t) + `", "exposure": "read_only"},
		"broken": {"command": "/bin/sh", "args": ["-c", "echo 'starting' >&2; echo 'fatal: token ${TOKEN} refused' >&2; exit 3"]}
	}}`
	s := startStack(t, file, env(map[string]string{"TOKEN": secret}), "")
	st := s.waitStatus(t, "broken", "failed", func(st gateway.Status) bool { return st.State == gateway.Failed })
	if !strings.Contains(st.Err, "standard error ended with: starting | fatal: token [redacted] refused") {
		t.Fatalf("broken's error = %q, want the end of its standard error", st.Err)
	}
	if strings.Contains(st.Err+s.log.String(), secret) {
		t.Fatalf("the secret was said: %q\n%s", st.Err, s.log.String())
	}
}
