package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
)

// result is what one in-process run of the command produced.
type result struct {
	stdout, stderr string
	code           int
}

// quiver runs the command line in-process, as the binary would.
func quiver(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return result{stdout.String(), stderr.String(), code}
}

// mustSucceed fails the test unless r exited 0 with nothing on stderr.
func (r result) mustSucceed(t *testing.T) result {
	t.Helper()
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	return r
}

// keysOf decodes a JSON object and returns its keys, sorted.
func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, raw)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// wantKeys fails unless raw is an object with exactly the given keys.
func wantKeys(t *testing.T, raw json.RawMessage, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := keysOf(t, raw); !slices.Equal(got, want) {
		t.Errorf("keys = %v, want exactly %v in %s", got, want, raw)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"search"}, `quiver: missing query: quiver search "<query>"`},
		{[]string{"search", "  "}, `quiver: missing query`},
		{[]string{"search", "x", "--limit", "0"}, `quiver: --limit 0: want at least 1`},
		{[]string{"search", "x", "--bogus"}, `quiver: unknown flag: --bogus`},
		{[]string{"search", "eval", "--catalog", "testdata/tiny.json"}, `quiver: --catalog and --queries go together`},
		{[]string{"search", "eval", "--ranker", "bm25"}, `quiver: --ranker "bm25": want default or baseline`},
		{[]string{"search", "eval", "--compare", "--ranker", "baseline"}, `quiver: --compare reports every ranker`},
		{[]string{"catalog", "tokens", "--inline", "workspace.openTable", "--inline-count", "2"}, `quiver: --inline and --inline-count exclude each other`},
		{[]string{"catalog", "tokens", "--inline-count", "-1"}, `quiver: --inline-count -1: want 0 or more`},
		{[]string{"bogus"}, `quiver: unknown command "bogus" for "quiver"`},
		{[]string{"catalog", "bogus"}, `quiver: unknown command "bogus" for "quiver catalog"`},
		// Unknown flags, missing flag values and malformed flag values, on
		// every command.
		{[]string{"--bogus"}, `quiver: unknown flag: --bogus`},
		{[]string{"catalog", "--bogus"}, `quiver: unknown flag: --bogus`},
		{[]string{"search", "eval", "--bogus"}, `quiver: unknown flag: --bogus`},
		{[]string{"catalog", "tokens", "--bogus"}, `quiver: unknown flag: --bogus`},
		{[]string{"search", "x", "--limit"}, `quiver: flag needs an argument: --limit`},
		{[]string{"search", "x", "--catalog"}, `quiver: flag needs an argument: --catalog`},
		{[]string{"search", "eval", "--queries"}, `quiver: flag needs an argument: --queries`},
		{[]string{"catalog", "tokens", "--inline"}, `quiver: flag needs an argument: --inline`},
		{[]string{"search", "x", "--limit", "ten"}, `quiver: --limit "ten": want an integer` + "\n"},
		{[]string{"catalog", "tokens", "--inline-count", "3.5"}, `quiver: --inline-count "3.5": want an integer` + "\n"},
		{[]string{"search", "x", "--json=maybe"}, `quiver: --json "maybe": want true or false` + "\n"},
		{[]string{"search", "eval", "--compare=2"}, `quiver: --compare "2": want true or false` + "\n"},
		{[]string{"catalog", "tokens", "--provider", "gemini"}, `quiver: --provider "gemini": want openai or anthropic`},
		{[]string{"help", "bogus"}, `quiver: unknown help topic "bogus"`},
		{[]string{"help", "search", "eval", "bogus"}, `quiver: unknown help topic "search eval bogus"`},
		// Extra arguments to commands that take none.
		{[]string{"search", "eval", "extra"}, `quiver: unknown command "extra" for "quiver search eval"`},
		{[]string{"catalog", "tokens", "extra"}, `quiver: unknown command "extra" for "quiver catalog tokens"`},
		{[]string{"registry", "serve", "extra"}, `quiver: unknown command "extra" for "quiver registry serve"`},
		{[]string{"registry", "ls", "extra"}, `quiver: unknown command "extra" for "quiver registry ls"`},
		{[]string{"bench", "registry", "extra"}, `quiver: unknown command "extra" for "quiver bench registry"`},
		{[]string{"registry", "bogus"}, `quiver: unknown command "bogus" for "quiver registry"`},
		{[]string{"bench", "bogus"}, `quiver: unknown command "bogus" for "quiver bench"`},
		// The registry's commands.
		{[]string{"registry", "serve", "--addr", "nonsense"}, `quiver: --addr "nonsense": want HOST:PORT`},
		{[]string{"registry", "serve", "--addr", "0.0.0.0:7420"}, `quiver: --addr 0.0.0.0:7420 is not a loopback address and there is no --keys: pass --keys FILE`},
		{[]string{"registry", "serve", "--max-body", "lots"}, `quiver: --max-body "lots": want a size such as 4MiB`},
		{[]string{"registry", "serve", "--lease-ttl", "10ms"}, `quiver: --lease-ttl 10ms: want at least 1s`},
		{[]string{"registry", "serve", "--lease-ttl", "soon"}, `quiver: --lease-ttl "soon": want a duration such as 30s or 2m` + "\n"},
		{[]string{"registry", "serve", "--retention", "-1h"}, `quiver: --retention -1h0m0s: want a positive duration`},
		{[]string{"registry", "serve", "--retention", "1h", "--result-retention", "2h"}, `quiver: --result-retention 2h0m0s: want a duration from 0`},
		{[]string{"registry", "serve", "--data", ""}, `quiver: --data "": name a folder`},
		{[]string{"registry", "ls", "--registry", "127.0.0.1:7420"}, `quiver: --registry "127.0.0.1:7420": want http(s)://host:port, e.g. http://127.0.0.1:7420` + "\n"},
		{[]string{"registry", "ls", "--registry", "ftp://127.0.0.1:7420"}, `quiver: --registry "ftp://127.0.0.1:7420": want http(s)://host[:port][/path]`},
		{[]string{"registry", "ls", "--registry", "http://127.0.0.1:7420?x=1"}, `quiver: --registry "http://127.0.0.1:7420?x=1": want http(s)://host[:port][/path]`},
		{[]string{"registry", "ls", "--key", "a b"}, `quiver: --key: an API key has no spaces`},
		{[]string{"registry", "ls", "--tag"}, `quiver: flag needs an argument: --tag`},
		{[]string{"registry", "search"}, `quiver: missing query: quiver registry search "<query>"`},
		{[]string{"registry", "search", "x", "--limit", "101"}, `quiver: --limit 101: want 1 to 100`},
		{[]string{"registry", "resolve"}, `quiver: missing toolset name: quiver registry resolve NAME`},
		{[]string{"registry", "resolve", "a", "b"}, `quiver: one toolset at a time`},
		{[]string{"registry", "resolve", "a", "--version", ""}, `quiver: --version "": name the version to pin`},
		{[]string{"registry", "call"}, `quiver: missing tool: quiver registry call TOOLSET.TOOL --payload JSON`},
		{[]string{"registry", "call", "a.b", "c.d"}, `quiver: one tool at a time`},
		{[]string{"registry", "call", "echo", "--payload", "{}"}, `quiver: "echo" is not TOOLSET.TOOL: it has no dot`},
		{[]string{"registry", "call", "a.b"}, `quiver: missing --payload`},
		{[]string{"registry", "call", "a.b", "--payload", "{"}, `quiver: --payload: not JSON: unexpected end of JSON input`},
		{[]string{"registry", "call", "a.b", "--payload", ""}, `quiver: --payload: not JSON: it is empty`},
		{[]string{"registry", "call", "a.b", "--payload", "@"}, `quiver: --payload @: name a file after @`},
		{[]string{"registry", "call", "a.b", "--payload", "{}", "--timeout", "11m"}, `quiver: --timeout 11m0s: want 1ms to 10m0s`},
		{[]string{"registry", "call", "a.b", "--payload", "{}", "--call-id", ""}, `quiver: --call-id "": give an id`},
		{[]string{"bench", "registry", "--calls", "0"}, `quiver: --calls 0: want at least 1`},
		{[]string{"bench", "registry", "--concurrency", "0"}, `quiver: --concurrency 0: want at least 1`},
		{[]string{"bench", "registry", "--data", ""}, `quiver: --data "": name a folder`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := quiver(t, tt.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d", r.code, exitUsage)
			}
			if !strings.HasPrefix(r.stderr, tt.want) {
				t.Errorf("stderr = %q, want prefix %q", r.stderr, tt.want)
			}
			if !strings.Contains(r.stderr, "--help' for usage.") {
				t.Errorf("stderr does not point at --help: %q", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
		})
	}
}

func TestBareCommandsPrintHelp(t *testing.T) {
	for _, args := range [][]string{nil, {"catalog"}, {"registry"}, {"bench"}} {
		r := quiver(t, args...).mustSucceed(t)
		if !strings.Contains(r.stdout, "Available Commands:") {
			t.Errorf("quiver %v printed no help:\n%s", args, r.stdout)
		}
	}
}

// TestFailuresExitOne: failures that are not usage errors exit 1, on every
// command, and print no usage hint.
func TestFailuresExitOne(t *testing.T) {
	for _, args := range [][]string{
		{"search", "x", "--catalog", "testdata/missing.json"},
		{"search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/missing.jsonl"},
		{"search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/typo_queries.jsonl"},
		{"catalog", "tokens", "--inline", "nope"},
		{"catalog", "tokens", "--catalog", "testdata/bad_schema.json"},
	} {
		r := quiver(t, args...)
		if r.code != exitError || !strings.HasPrefix(r.stderr, "quiver: ") || strings.Contains(r.stderr, "for usage") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// TestErrorsDoNotRepeatTheirPrefixes checks every failure the command
// prints for a word or a quoted phrase repeated from a prefix: a chain
// wrapped twice ("queries: queries: …", "--inline: --inline: …") reads as
// noise.
func TestErrorsDoNotRepeatTheirPrefixes(t *testing.T) {
	for _, args := range [][]string{
		{"search", "x", "--catalog", "testdata/missing.json"},
		{"search", "x", "--catalog", "testdata/bad_schema.json"},
		{"search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/missing.jsonl"},
		{"search", "eval", "--catalog", "testdata/tiny.json", "--queries", "testdata/bad_queries.jsonl"},
		{"search", "eval", "--catalog", "testdata/bad_schema.json", "--queries", "testdata/tiny_queries.jsonl"},
		{"catalog", "tokens", "--inline", "nope,zip"},
		{"catalog", "tokens", "--catalog", "testdata/missing.json"},
		{"registry", "call", "a.b", "--payload", "@testdata/missing.json"},
		{"registry", "serve", "--addr", "127.0.0.1:0", "--keys", "testdata/missing.json"},
		{"registry", "ls", "--registry", "http://" + registrytest.FreeAddr(t)},
	} {
		r := quiver(t, args...)
		if r.code == exitOK {
			t.Errorf("%v succeeded", args)
		}
		for line := range strings.Lines(r.stderr) {
			parts := strings.Split(strings.TrimSuffix(line, "\n"), ": ")
			for i := 1; i < len(parts); i++ {
				if slices.Contains(parts[:i], parts[i]) {
					t.Errorf("%v: %q repeats %q", args, line, parts[i])
				}
			}
		}
	}
}

func TestVersion(t *testing.T) {
	r := quiver(t, "--version").mustSucceed(t)
	if !regexp.MustCompile(`^quiver \S+ go1\.\d+\S*\n$`).MatchString(r.stdout) {
		t.Errorf("--version printed %q, want quiver <module version> <go version>", r.stdout)
	}
	if !strings.Contains(r.stdout, runtime.Version()) {
		t.Errorf("--version printed %q, want the Go version %s", r.stdout, runtime.Version())
	}
}

func TestVersionOf(t *testing.T) {
	for _, tt := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/quiver-go/quiver", Version: "v0.4.0"}}, "v0.4.0 go1.26.0"},
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/quiver-go/quiver", Version: "(devel)"}}, "(devel) go1.26.0"},
		{&debug.BuildInfo{GoVersion: "go1.26.0"}, "(devel) go1.26.0"},
		{nil, "(devel) " + runtime.Version()},
	} {
		if got := versionOf(tt.info); got != tt.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tt.info, got, tt.want)
		}
	}
}

// TestNoExamplesImport: the command is not an example; it must not depend
// on any package under examples/, directly or not.
func TestNoExamplesImport(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for pkg := range strings.Lines(string(out)) {
		if strings.HasPrefix(pkg, "github.com/quiver-go/quiver/examples/") {
			t.Errorf("cmd/quiver depends on %s", strings.TrimSpace(pkg))
		}
	}
}
