package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
)

func TestRegistryLs(t *testing.T) {
	r := startRegistry(t)
	out := quiver(t, "registry", "ls", "--registry", r.URL).mustSucceed(t)
	lines := strings.Split(strings.TrimSpace(out.stdout), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "registry  "+r.URL+": 2 toolsets (catalog revision ") || lines[1] != "" {
		t.Fatalf("want the registry, a blank line, a header and 2 toolsets:\n%s", out.stdout)
	}
	for i, want := range []string{
		"NAME VERSION REVISION TOOLS PROVIDERS",
		"bench - r1 1 1",
		"workspace 1.0.0 w1 38 1",
	} {
		if got := strings.Join(strings.Fields(lines[2+i]), " "); got != want {
			t.Errorf("line %d = %q, want %q", 2+i, got, want)
		}
	}

	out = quiver(t, "registry", "ls", "--registry", r.URL, "--tag", "data", "--json").mustSucceed(t)
	wantKeys(t, []byte(out.stdout), "revision", "toolsets")
	var ls struct {
		Toolsets []json.RawMessage
	}
	decodeJSON(t, out.stdout, &ls)
	if len(ls.Toolsets) != 1 {
		t.Fatalf("--tag data: %d toolsets, want workspace only:\n%s", len(ls.Toolsets), out.stdout)
	}
	wantKeys(t, ls.Toolsets[0], "name", "description", "version", "tags", "fingerprint", "revision", "tools", "providers")
	var ws struct {
		Name      string
		Tools     []string
		Providers int
	}
	if err := json.Unmarshal(ls.Toolsets[0], &ws); err != nil {
		t.Fatal(err)
	}
	if ws.Name != "workspace" || len(ws.Tools) != 38 || ws.Providers != 1 {
		t.Errorf("toolset %+v", ws)
	}

	out = quiver(t, "registry", "ls", "--registry", r.URL, "--tag", "data", "--tag", "bench").mustSucceed(t)
	if !strings.HasPrefix(out.stdout, "No toolset of the registry at "+r.URL+" has the tags data, bench") {
		t.Errorf("no toolset has both tags: %q", out.stdout)
	}
}

func TestRegistrySearch(t *testing.T) {
	r := startRegistry(t)
	out := quiver(t, "registry", "search", "--registry", r.URL, "export", "this", "table", "to", "csv", "--limit", "3").mustSucceed(t)
	lines := strings.Split(strings.TrimSpace(out.stdout), "\n")
	if len(lines) != 6 || lines[0] != "registry  "+r.URL+" (catalog revision 2)" {
		t.Fatalf("want the registry, a blank line, a header and 3 hits:\n%s", out.stdout)
	}
	if got := strings.Join(strings.Fields(lines[2]), " "); got != "RANK IDENT TITLE" {
		t.Errorf("header = %q", lines[2])
	}
	if f := strings.Fields(lines[3]); f[0] != "1" || f[1] != "workspace.startExport" || strings.Join(f[2:], " ") != "Start export" {
		t.Errorf("first hit = %q, want workspace.startExport", lines[3])
	}

	out = quiver(t, "registry", "search", "--registry", r.URL, "return the text it is given", "--limit", "1", "--json").mustSucceed(t)
	wantKeys(t, []byte(out.stdout), "revision", "hits")
	var res struct{ Hits []json.RawMessage }
	decodeJSON(t, out.stdout, &res)
	if len(res.Hits) != 1 {
		t.Fatalf("%d hits, want 1 (--limit)", len(res.Hits))
	}
	wantKeys(t, res.Hits[0], "ident", "toolset", "tool", "title", "description")
	if !strings.Contains(string(res.Hits[0]), `"ident": "bench.echo"`) {
		t.Errorf("hit %s, want bench.echo", res.Hits[0])
	}

	out = quiver(t, "registry", "search", "--registry", r.URL, "zzzz qqqq").mustSucceed(t)
	if !strings.HasPrefix(out.stdout, `No tool of the registry at `+r.URL+` matches "zzzz qqqq"`) {
		t.Errorf("no hits: %q", out.stdout)
	}
}

func TestRegistryResolve(t *testing.T) {
	r := startRegistry(t)
	out := quiver(t, "registry", "resolve", "workspace", "--registry", r.URL).mustSucceed(t)
	fields := map[string]string{}
	lines := strings.Split(out.stdout, "\n")
	for _, line := range lines[:7] {
		k, v, _ := strings.Cut(line, " ")
		fields[k] = strings.TrimSpace(v)
	}
	if fields["toolset"] != "workspace" || fields["version"] != "1.0.0" || fields["revision"] != "w1" ||
		!strings.HasPrefix(fields["fingerprint"], "sha256:") || fields["token"] == "" || fields["tools"] != "38" ||
		!strings.HasPrefix(fields["registry"], r.URL+" (catalog revision ") {
		t.Errorf("fields %q from:\n%s", fields, out.stdout)
	}
	if got := strings.Join(strings.Fields(lines[8]), " "); got != "TOOL TITLE" {
		t.Errorf("tools header = %q", lines[8])
	}
	if got := strings.Join(strings.Fields(lines[9]), " "); got != "listTables List tables" {
		t.Errorf("first tool = %q, want the catalog's first", lines[9])
	}

	out = quiver(t, "registry", "resolve", "bench", "--registry", r.URL, "--json").mustSucceed(t)
	wantKeys(t, []byte(out.stdout), "catalog_revision", "toolset")
	var res struct {
		Toolset struct {
			Name, Token string
			Declaration struct {
				Tools []struct {
					Name        string
					InputSchema json.RawMessage `json:"input_schema"`
				}
			}
		}
	}
	decodeJSON(t, out.stdout, &res)
	var whole map[string]json.RawMessage
	decodeJSON(t, out.stdout, &whole)
	wantKeys(t, whole["toolset"], "name", "fingerprint", "revision", "token", "declaration")
	if res.Toolset.Name != "bench" || res.Toolset.Token == "" || len(res.Toolset.Declaration.Tools) != 1 ||
		!strings.Contains(compact(t, res.Toolset.Declaration.Tools[0].InputSchema), `"maxLength":100`) {
		t.Errorf("resolution:\n%s", out.stdout)
	}

	fail := quiver(t, "registry", "resolve", "workspace", "--registry", r.URL, "--version", "2.0.0")
	if fail.code != exitError || !strings.HasPrefix(fail.stderr, "quiver: version_mismatch: ") || fail.stdout != "" {
		t.Errorf("--version 2.0.0: exit %d, stderr %q", fail.code, fail.stderr)
	}
}

func TestRegistryCall(t *testing.T) {
	r := startRegistry(t)
	out := quiver(t, "registry", "call", "bench.echo", "--payload", `{"text": "hi"}`, "--registry", r.URL).mustSucceed(t)
	lines := strings.Split(out.stdout, "\n")
	if lines[0] != "tool     bench.echo" || !strings.HasPrefix(lines[1], "call id  quiver-") || lines[2] != "outcome  ok" || lines[3] != "" {
		t.Errorf("stdout:\n%s", out.stdout)
	}
	callID := strings.Fields(lines[1])[2]
	if !strings.Contains(lines[1], "--call-id "+callID) {
		t.Errorf("the generated call id is not offered for a retry: %q", lines[1])
	}
	if got := strings.Join(lines[4:], "\n"); got != "{\n  \"text\": \"hi\"\n}\n" {
		t.Errorf("result = %q", got)
	}
	if runs := r.counter.Runs(callID); runs != 1 {
		t.Errorf("the call ran %d times", runs)
	}

	// --call-id makes a retry read the recorded outcome; --payload @FILE.
	file := filepath.Join(t.TempDir(), "payload.json")
	if err := os.WriteFile(file, []byte(`{"text": "from a file"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		out = quiver(t, "registry", "call", "bench.echo", "--payload", "@"+file, "--call-id", "file-1", "--json", "--registry", r.URL).mustSucceed(t)
		if out.stdout != "{\n  \"call_id\": \"file-1\",\n  \"outcome\": \"ok\",\n  \"result\": {\n    \"text\": \"from a file\"\n  }\n}\n" {
			t.Errorf("stdout:\n%s", out.stdout)
		}
	}
	if runs := r.counter.Runs("file-1"); runs != 1 {
		t.Errorf("a call retried with its id ran %d times", runs)
	}

	// A tool's failure.
	out = quiver(t, "registry", "call", "workspace.cancelExport", "--payload", `{"exportId": "e1"}`, "--call-id", "cancel-1", "--registry", r.URL)
	if out.code != exitError || out.stderr != "quiver: workspace.cancelExport failed (tool_error): The tool failed: no export {\"exportId\":\"e1\"} is running\n" ||
		!strings.Contains(out.stdout, "outcome  tool_error") {
		t.Errorf("tool_error: exit %d\nstdout:\n%s\nstderr:\n%s", out.code, out.stdout, out.stderr)
	}
}

// TestRegistryCallFailures: registry errors exit 1 with their name and
// message.
func TestRegistryCallFailures(t *testing.T) {
	r := startRegistry(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench.echo", "--payload", `{"text": 5}`}, "quiver: validation_error: "},
		{[]string{"bench.echo", "--payload", `{}`}, "quiver: validation_error: "},
		{[]string{"nope.echo", "--payload", `{}`}, `quiver: unknown_toolset: no toolset "nope" is registered`},
		{[]string{"bench.nope", "--payload", `{}`}, `quiver: unknown_tool: toolset "bench" has no tool "nope"`},
		{[]string{"bench.echo", "--payload", `{"text": "b"}`, "--call-id", "same"}, "quiver: call_id_conflict: "},
	} {
		if tt.want == "quiver: call_id_conflict: " {
			quiver(t, "registry", "call", "bench.echo", "--payload", `{"text": "a"}`, "--call-id", "same", "--registry", r.URL).mustSucceed(t)
		}
		out := quiver(t, append([]string{"registry", "call", "--registry", r.URL}, tt.args...)...)
		if out.code != exitError || !strings.HasPrefix(out.stderr, tt.want) || out.stdout != "" || strings.Contains(out.stderr, "for usage") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tt.args, out.code, out.stdout, out.stderr, tt.want)
		}
	}
	if runs := r.counter.Runs("same"); runs != 1 {
		t.Errorf("call id reused with another payload: ran %d times", runs)
	}
}

// TestRegistryNotRunning: a registry that does not answer is named, with
// how to start one.
func TestRegistryNotRunning(t *testing.T) {
	url := "http://" + registrytest.FreeAddr(t)
	for _, args := range [][]string{
		{"registry", "ls"},
		{"registry", "search", "x"},
		{"registry", "resolve", "bench"},
		{"registry", "call", "bench.echo", "--payload", "{}"},
	} {
		t.Setenv(envRegistryURL, url)
		out := quiver(t, args...)
		want := "quiver: no registry answers at " + url + " (connection refused): start one with 'quiver serve' or 'quiver registry serve'"
		if out.code != exitError || !strings.HasPrefix(out.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q", args, out.code, out.stderr)
		}
	}
}

// TestRegistryFlagsFromEnvironment: $QUIVER_REGISTRY_URL and
// $QUIVER_REGISTRY_KEY stand for the flags, which win over them.
func TestRegistryFlagsFromEnvironment(t *testing.T) {
	r := startRegistry(t)
	t.Setenv(envRegistryURL, r.URL)
	quiver(t, "registry", "ls").mustSucceed(t)
	t.Setenv(envRegistryURL, "http://"+registrytest.FreeAddr(t))
	quiver(t, "registry", "ls", "--registry", r.URL).mustSucceed(t)
	t.Setenv(envRegistryKey, "has space")
	out := quiver(t, "registry", "ls", "--registry", r.URL)
	if out.code != exitUsage || !strings.HasPrefix(out.stderr, "quiver: $QUIVER_REGISTRY_KEY: an API key has no spaces") {
		t.Errorf("exit %d, stderr %q", out.code, out.stderr)
	}
}

// compact returns raw without white space.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
