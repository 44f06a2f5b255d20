package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// withStdin makes content the process's stdin while the test runs: the
// command reads os.Stdin for --catalog -.
func withStdin(t *testing.T, content string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = f
	t.Cleanup(func() { os.Stdin = old; f.Close() })
}

// catalogCommands are the commands that take --catalog, with the
// arguments each needs besides.
var catalogCommands = [][]string{
	{"search", "weather"},
	{"search", "eval", "--queries", "testdata/tiny_queries.jsonl"},
	{"catalog", "tokens"},
}

// TestCatalogFlagUsageErrors: a --catalog or --max-input-size that cannot
// be right is a usage error (exit 2) on every command taking a catalog,
// reported before anything is read.
func TestCatalogFlagUsageErrors(t *testing.T) {
	for _, cmd := range catalogCommands {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"--catalog", ""}, `quiver: --catalog "": name a catalog file, or "-" to read stdin; leave --catalog out for the embedded workspace catalog` + "\n"},
			{[]string{"--catalog", "testdata/tiny.json", "--max-input-size", "lots"}, `quiver: --max-input-size "lots": want a size such as 64MiB, 500MB or 1GiB` + "\n"},
			{[]string{"--catalog", "testdata/tiny.json", "--max-input-size", "0"}, `quiver: --max-input-size "0": want a size such as 64MiB, 500MB or 1GiB` + "\n"},
		} {
			args := append(append([]string{}, cmd...), tt.args...)
			r := quiver(t, args...)
			if r.code != exitUsage {
				t.Errorf("%v: exit %d, want %d", args, r.code, exitUsage)
			}
			if !strings.HasPrefix(r.stderr, tt.want) || !strings.Contains(r.stderr, "--help' for usage.") {
				t.Errorf("%v: stderr = %q, want %q and the usage hint", args, r.stderr, tt.want)
			}
		}
	}
}

// TestBadCatalogContent: a catalog the runtime would refuse is an input
// error (exit 1) on every command taking a catalog, positioned in the file.
func TestBadCatalogContent(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"testdata/invalid_json_schema.json", `quiver: catalogfile: testdata/invalid_json_schema.json:2:106: tools[0].inputSchema: invalid JSON Schema: at /properties/n/minimum: got string, want number`},
		{"testdata/name_space.json", `quiver: catalogfile: testdata/name_space.json:2:12: tools[0].name: tool name "get weather" contains whitespace: use '_' or '-' instead (--lenient reads the catalog anyway, with a warning for each name)`},
		{"testdata/name_provider.json", `quiver: catalogfile: testdata/name_provider.json:2:12: tools[0].name: tool name "météo" is not one providers accept: use 1 to 64 ASCII letters, digits, '_' or '-' (the runtime would show the model "m_t_o") (--lenient reads the catalog anyway, with a warning for each name)`},
		{"testdata/name_case.json", `quiver: catalogfile: testdata/name_case.json:3:12: tools[1].name: it differs from "getUser" (tools[0] at 2:3) only in case: providers and MCP clients may take them for one tool; rename one (--lenient reads the catalog anyway, with a warning for each name)`},
		{"testdata/control.json", `quiver: catalogfile: testdata/control.json:2:35: tools[0].description: contains the control character U+0007: remove it (tab and line breaks are the only ones allowed)`},
		{"testdata/invalid_utf8.json", `quiver: catalogfile: testdata/invalid_utf8.json:2:39: tools[0]: invalid UTF-8: a catalog is UTF-8 text; convert the file (for example iconv -f latin1 -t utf-8)`},
	}
	for _, tt := range tests {
		for _, cmd := range catalogCommands {
			args := append(append([]string{}, cmd...), "--catalog", tt.file)
			r := quiver(t, args...)
			if r.code != exitError {
				t.Errorf("%v: exit %d, want %d", args, r.code, exitError)
			}
			if r.stderr != tt.want+"\n" {
				t.Errorf("%v: stderr\n got: %q\nwant: %q", args, r.stderr, tt.want+"\n")
			}
			if r.stdout != "" {
				t.Errorf("%v: stdout = %q, want nothing", args, r.stdout)
			}
		}
	}
}

// TestLenientCatalog: --lenient reads a catalog with name problems,
// warning of each on stderr, and the command does its work.
func TestLenientCatalog(t *testing.T) {
	r := quiver(t, "search", "read a user", "--catalog", "testdata/name_case.json", "--lenient", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	want := `quiver: warning: catalogfile: testdata/name_case.json:3:12: tools[1].name: it differs from "getUser" (tools[0] at 2:3) only in case: providers and MCP clients may take them for one tool; rename one` + "\n"
	if r.stderr != want {
		t.Errorf("stderr\n got: %q\nwant: %q", r.stderr, want)
	}
	var out struct{ Hits []struct{ Name string } }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Hits) != 2 {
		t.Errorf("stdout = %s, want both tools ranked", r.stdout)
	}
	// A schema the runtime refuses is a warning too: the catalog can be
	// searched, not compiled.
	r = quiver(t, "search", "x", "--catalog", "testdata/invalid_json_schema.json", "--lenient")
	if r.code != exitOK || !strings.Contains(r.stderr, "quiver: warning: ") || !strings.Contains(r.stderr, "invalid JSON Schema") {
		t.Errorf("--lenient on a bad schema: exit %d, stderr %q", r.code, r.stderr)
	}
	// Other problems stay errors.
	r = quiver(t, "search", "x", "--catalog", "testdata/control.json", "--lenient")
	if r.code != exitError {
		t.Errorf("--lenient on a control character: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCatalogFormats: a JSON-RPC tools/list response with a byte order
// mark is read, and the output names the catalog used.
func TestCatalogFormats(t *testing.T) {
	r := quiver(t, "search", "weather in Paris", "--catalog", "testdata/jsonrpc.json").mustSucceed(t)
	if !strings.HasPrefix(r.stdout, "catalog  testdata/jsonrpc.json: 2 tools\n") || !strings.Contains(r.stdout, "get_weather") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	r = quiver(t, "catalog", "tokens", "--catalog", "testdata/jsonrpc.json").mustSucceed(t)
	if !strings.HasPrefix(r.stdout, "catalog   testdata/jsonrpc.json: 2 tools\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

// TestCatalogFromStdin: --catalog - reads stdin, and the output says so.
func TestCatalogFromStdin(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	withStdin(t, string(data))
	r := quiver(t, "search", "send an email", "--catalog", "-").mustSucceed(t)
	if !strings.HasPrefix(r.stdout, "catalog  stdin: 3 tools\n") || !strings.Contains(r.stdout, "send_email") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	withStdin(t, `{"tools": [{"name": 1}]}`)
	r = quiver(t, "catalog", "tokens", "--catalog", "-")
	if want := "quiver: catalogfile: stdin:1:21: tools[0].name: expected a non-empty string, got number\n"; r.code != exitError || r.stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}

// TestCatalogSizeLimit: input over --max-input-size is refused at once,
// from a regular file (by its size), from a device that never ends and
// from a pipe, and so are queries.
func TestCatalogSizeLimit(t *testing.T) {
	r := quiver(t, "search", "weather", "--catalog", "testdata/tiny.json", "--max-input-size", "100B")
	want := "quiver: catalogfile: testdata/tiny.json: the input is 643 B, over the 100 B size limit; --max-input-size raises the limit\n"
	if r.code != exitError || r.stderr != want {
		t.Errorf("regular file: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
	queries := filepath.Join(t.TempDir(), "queries.jsonl")
	line := `{"id": "q", "query": "weather", "relevant": ["get_weather"]}` + "\n"
	if err := os.WriteFile(queries, []byte(strings.Repeat(line, 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	r = quiver(t, "search", "eval", "--catalog", "testdata/tiny.json", "--queries", queries, "--max-input-size", "1KiB")
	want = "quiver: queries: " + queries + " is 1.2 KiB, over the 1 KiB input limit; --max-input-size raises the limit\n"
	if r.code != exitError || r.stderr != want {
		t.Errorf("queries: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		start := time.Now()
		r = quiver(t, "search", "weather", "--catalog", "/dev/zero")
		want = `quiver: catalogfile: /dev/zero:1:1: invalid JSON: invalid character '\x00' looking for beginning of value` + "\n"
		if r.code != exitError || r.stderr != want {
			t.Errorf("/dev/zero: exit %d, stderr %q, want %q", r.code, r.stderr, want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("/dev/zero: took %v", d)
		}
	}
	// A pipe that never ends, well formed as far as it goes.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		pw.WriteString("[")
		spaces := []byte(strings.Repeat(" ", 4096))
		for {
			if _, err := pw.Write(spaces); err != nil {
				pw.Close()
				return
			}
		}
	}()
	old := os.Stdin
	os.Stdin = pr
	defer func() { os.Stdin = old; pr.Close() }()
	start := time.Now()
	r = quiver(t, "search", "weather", "--catalog", "-", "--max-input-size", "1MiB")
	want = "quiver: catalogfile: stdin: the input is over the 1 MiB size limit; nothing past it was read; --max-input-size raises the limit\n"
	if r.code != exitError || r.stderr != want {
		t.Errorf("endless pipe: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("endless pipe: took %v", d)
	}
}
