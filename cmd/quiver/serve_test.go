package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/internal/httpauth"
	"github.com/quiver-go/quiver/internal/syncbuf"
	"github.com/quiver-go/quiver/tools"
)

// mcpSession connects a Go SDK client to url (with key as its bearer
// credential when set) and counts the list_changed notifications it gets.
type mcpSession struct {
	*sdk.ClientSession
	changes chan struct{}
}

func connectMCP(t *testing.T, transport sdk.Transport) *mcpSession {
	t.Helper()
	s := &mcpSession{changes: make(chan struct{}, 16)}
	c := sdk.NewClient(&sdk.Implementation{Name: "quiver-test", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { s.changes <- struct{}{} },
	})
	cs, err := c.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.ClientSession = cs
	t.Cleanup(func() { _ = cs.Close() })
	return s
}

func httpTransport(url, key string) sdk.Transport {
	t := &sdk.StreamableClientTransport{Endpoint: url}
	if key != "" {
		t.HTTPClient = &http.Client{Transport: httpauth.BearerTransport{Key: key}}
	}
	return t
}

// names lists the session's tools.
func (s *mcpSession) names(t *testing.T) []string {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name)
	}
	return out
}

// call calls a tool and returns its text and whether it failed.
func (s *mcpSession) call(t *testing.T, name string, args any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	return text, res.IsError
}

// searchAndCall runs the newcomer's path: only the search is listed; a
// search finds listTables, the list changes, and listTables answers.
func searchAndCall(t *testing.T, s *mcpSession) {
	t.Helper()
	if got := s.names(t); !slices.Equal(got, []string{"search_tools"}) {
		t.Fatalf("tools = %v, want only search_tools: the registry's tools are found by search", got)
	}
	if text, isErr := s.call(t, "search_tools", map[string]string{"query": "list the tables"}); isErr || !strings.Contains(text, `"name":"listTables"`) {
		t.Fatalf("search = %s", text)
	}
	select {
	case <-s.changes:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the search")
	}
	if text, isErr := s.call(t, "listTables", map[string]any{}); isErr || !strings.Contains(text, "sales.orders") {
		t.Fatalf("listTables = %s (error %v)", text, isErr)
	}
}

// mcpURL is the MCP endpoint a banner prints.
func mcpURL(t *testing.T, banner string) string {
	t.Helper()
	for line := range strings.Lines(banner) {
		if rest, ok := strings.CutPrefix(line, "mcp       "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no mcp line in the banner:\n%s", banner)
	return ""
}

func TestServeSearchesAndCallsOverMCP(t *testing.T) {
	s := startServing(t, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir())
	session := connectMCP(t, httpTransport(mcpURL(t, s.stdout.String()), ""))
	searchAndCall(t, session)
	// A tool that needs a person's confirmation is refused over MCP.
	session.call(t, "search_tools", map[string]string{"query": "start an export"})
	if text, isErr := session.call(t, "startExport", map[string]any{"table": "sales.orders", "format": "csv"}); !isErr || !strings.Contains(text, "confirmation") {
		t.Fatalf("startExport = %s (error %v), want it refused", text, isErr)
	}
}

func TestServeKeysScopeTheClients(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(keys, []byte(`{"clients":[{"name":"viewer","key":"view-secret","tier":"read_only"},{"name":"admin","key":"admin-secret","tier":"full"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServing(t, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", keys, "--expose-all")
	url := mcpURL(t, s.stdout.String())
	viewer := connectMCP(t, httpTransport(url, "view-secret")).names(t)
	admin := connectMCP(t, httpTransport(url, "admin-secret")).names(t)
	if !slices.Contains(viewer, "listTables") || slices.Contains(viewer, "clearFilters") || !slices.Contains(admin, "clearFilters") {
		t.Fatalf("viewer lists %v, admin %v: read_only tools for the viewer, full ones for the admin only", viewer, admin)
	}
	if slices.Contains(admin, "commitStagedEdits") {
		t.Fatal("an excluded tool is listed")
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no credential: %d, want 401", resp.StatusCode)
	}
}

func TestServeUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`{"clients":[{"name":"x","key":"k","tier":"root"}]}`), 0o600)
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"serve", "--addr", "0.0.0.0:0"}, "not a loopback address and there is no --keys", exitUsage},
		{[]string{"serve", "--addr", "nowhere"}, "want HOST:PORT", exitUsage},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", bad}, `tier "root" is not read_only, staging or full`, exitError},
	} {
		r := quiver(t, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %d and %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
}

// goTool returns the go command, skipping when there is none.
func goTool(t *testing.T) string {
	t.Helper()
	g, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	return g
}

// repoRoot is the repository's root folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// readmeRun returns the README's Run command: the first line of the code
// block under "## Run".
func readmeRun(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "## Run\n")
	if !ok {
		t.Fatal("the README has no ## Run section")
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("the README's Run section has no sh block")
	}
	line, _, _ := strings.Cut(block, "\n")
	return line
}

func TestReadmeRunCommandServesMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the README's command")
	}
	goBin := goTool(t)
	line := readmeRun(t)
	words := strings.Fields(line)
	if len(words) < 3 || words[0] != "go" {
		t.Fatalf("the README's Run command %q is not a go command", line)
	}
	cmd := exec.Command(goBin, words[1:]...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// go run's child is in the same process group: stop both.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	// The MCP URL, once the whole banner is out.
	urls := make(chan string, 1)
	var banner syncbuf.Buffer
	go func() {
		sc := bufio.NewScanner(stdout)
		url := ""
		for sc.Scan() {
			fmt.Fprintln(&banner, sc.Text())
			if rest, ok := strings.CutPrefix(sc.Text(), "mcp       "); ok {
				url = strings.TrimSpace(rest)
			}
			if strings.HasPrefix(sc.Text(), "Serving until") {
				urls <- url
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-exited:
		t.Fatalf("%q exited without printing an MCP URL; stderr:\n%s", line, stderr.String())
	case <-time.After(3 * time.Minute):
		t.Fatalf("%q printed no MCP URL; stderr:\n%s", line, stderr.String())
	}
	// go run's binary is temporary: the banner says to install quiver
	// before configuring a client that starts it.
	if !strings.Contains(banner.String(), "first           go install ./cmd/quiver") {
		t.Errorf("the banner of %q does not say to go install quiver first:\n%s", line, banner.String())
	}
	searchAndCall(t, connectMCP(t, httpTransport(url, "")))
}

// readmeInstall returns the README's install command: the first inline
// code span starting "go install", which must come before the first
// inline command calling quiver.
func readmeInstall(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "`go install ")
	if i < 0 {
		t.Fatal("the README has no `go install …` line")
	}
	if q := strings.Index(readme, "`quiver "); q >= 0 && q < i {
		t.Errorf("the README calls quiver (%q) before it says how to install it", readme[q:q+min(40, len(readme)-q)])
	}
	line, _, ok := strings.Cut(readme[i+1:], "`")
	if !ok {
		t.Fatal("the README's go install line has no closing backquote")
	}
	return line
}

// TestReadmeInstallLineInstallsQuiver runs the README's go install line
// literally, with GOBIN at a temporary folder, and runs what it installed.
func TestReadmeInstallLineInstallsQuiver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs quiver")
	}
	goBin := goTool(t)
	line := readmeInstall(t)
	words := strings.Fields(line)
	gobin := t.TempDir()
	cmd := exec.Command(goBin, words[1:]...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "quiver"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "quiver ") {
		t.Fatalf("the installed quiver --version: %v\n%s", err, out)
	}
}

func TestServeStdio(t *testing.T) {
	bin := quiverBinary(t)
	cmd := exec.Command(bin, "serve", "--stdio", "--data", t.TempDir())
	searchAndCall(t, connectMCP(t, &sdk.CommandTransport{Command: cmd}))
}

func TestAnonymousStdioTierIsTheLowestCredentialTier(t *testing.T) {
	ro, st, full := tools.ExposureReadOnly, tools.ExposureStaging, tools.ExposureFull
	for _, c := range []struct {
		creds map[string]tools.Exposure
		want  tools.Exposure
	}{
		{nil, full},
		{map[string]tools.Exposure{"a": full}, full},
		{map[string]tools.Exposure{"a": full, "b": st}, st},
		{map[string]tools.Exposure{"a": st, "b": ro, "c": full}, ro},
		{map[string]tools.Exposure{"a": ro, "b": st}, ro},
	} {
		if got := anonymousStdioTier(c.creds); got != c.want {
			t.Errorf("anonymousStdioTier(%v) = %q, want %q", c.creds, got, c.want)
		}
	}
}
