package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/internal/testbuild"
)

// commands returns cmd and every command under it, depth first.
func commands(cmd *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{cmd}
	for _, c := range cmd.Commands() {
		out = append(out, commands(c)...)
	}
	return out
}

// shellWords splits one example line into words as a POSIX shell would for
// the simple lines help examples hold: blanks separate words, and double or
// single quotes group a phrase (no escapes, variables or globs).
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case strings.ContainsRune(`\$*?|&;<>()`+"`", r):
			t.Fatalf("example %q uses shell syntax %q the test does not interpret", line, r)
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("example %q has an unterminated quote", line)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// servingCommands run until they are stopped: their examples run until
// they serve, then stop as on SIGINT. Each maps to its default address.
var servingCommands = map[string]string{"quiver registry serve": defaultRegistryAddr, "quiver serve": defaultServeAddr}

// exampleRedisAddr is where the examples that need Redis expect it.
const exampleRedisAddr = "127.0.0.1:6379"

// Requirement lines: a comment line of an Example naming what the
// examples after it need running. The test starts it, or skips them
// saying why.
const (
	withQuiverServe = "# with quiver serve running"
	withRedis       = "# with redis-server on " + exampleRedisAddr
	// withUpstreamsFile writes mcp-servers.json in the example's folder:
	// an mcpServers file starting the test MCP server (mcp/internal/testserver).
	withUpstreamsFile = "# with mcp-servers.json, an mcpServers file, in the current folder"
)

// TestHelpExamplesRun runs every line of every command's Example, as
// written, from an empty directory and in a new user's environment: no
// QUIVER_* variable, and $XDG_DATA_HOME at a new temporary folder for each
// command. An example must work for a user who copies it, so it may name
// no file and only tools of the embedded catalog, and what it needs
// running is said by a requirement line before it (withQuiverServe,
// withRedis, withRecordedRun, withUpstreamsFile), which the test starts: quiver serve on a free port, found by
// the registry commands through its data folder, or a redis-server on
// 127.0.0.1:6379 when that port is free (else those examples are
// skipped). Every command that does something has examples.
func TestHelpExamplesRun(t *testing.T) {
	testserver, err := filepath.Abs(filepath.Join("..", "..", "mcp", "internal", "testserver"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "QUIVER_") {
			t.Setenv(name, "") // restored afterwards
			os.Unsetenv(name)
		}
	}
	ran := 0
	for _, cmd := range commands(newRootCommand()) {
		if cmd.Example == "" {
			if cmd.Runnable() && cmd.HasParent() && !cmd.HasAvailableSubCommands() {
				t.Errorf("%s has no Example", cmd.CommandPath())
			}
			continue
		}
		t.Run(cmd.CommandPath(), func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", t.TempDir())
			var skip string // why the examples after a requirement cannot run
			started := map[string]bool{}
			for line := range strings.Lines(cmd.Example) {
				line = strings.TrimSpace(line)
				switch {
				case line == "":
					continue
				case line == withQuiverServe:
					if !started[line] {
						startServing(t, "serve", "--addr", "127.0.0.1:0")
						started[line] = true
					}
					continue
				case line == withRedis:
					if !started[line] {
						skip = startExampleRedis(t)
						started[line] = true
					}
					continue
				case line == withRecordedRun:
					if !started[line] {
						dir, err := defaultDataDir()
						if err != nil {
							t.Fatal(err)
						}
						recordRunsIn(t, dir)
						started[line] = true
					}
					continue
				case line == withUpstreamsFile:
					if !started[line] {
						server := testbuild.Binary(t, testserver)
						body := fmt.Sprintf(`{"mcpServers": {"tools": {"command": %q}}}`, server)
						if err := os.WriteFile("mcp-servers.json", []byte(body), 0o600); err != nil {
							t.Fatal(err)
						}
						started[line] = true
					}
					continue
				case strings.HasPrefix(line, "# with "):
					t.Errorf("%s: requirement %q: the test knows only %q, %q, %q and %q", cmd.CommandPath(), line, withQuiverServe, withRedis, withRecordedRun, withUpstreamsFile)
					continue
				case strings.HasPrefix(line, "#"):
					continue
				}
				words := shellWords(t, line)
				if words[0] != "quiver" {
					t.Errorf("%s: example %q does not start with quiver", cmd.CommandPath(), line)
					continue
				}
				t.Run(line, func(t *testing.T) {
					if skip != "" {
						t.Skip(skip)
					}
					var r result
					if addr, ok := servingCommands[cmd.CommandPath()]; ok {
						r = serveExample(t, addr, words[1:])
					} else {
						r = quiver(t, words[1:]...)
					}
					if r.code != exitOK || r.stderr != "" || r.stdout == "" {
						t.Errorf("exit %d, stdout %d bytes, stderr:\n%s", r.code, len(r.stdout), r.stderr)
					}
				})
				ran++
			}
		})
	}
	if ran < 10 {
		t.Errorf("ran %d examples; the commands' Example fields hold more", ran)
	}
}

// startExampleRedis starts a redis-server on exampleRedisAddr until the
// test ends, or returns why the examples needing it are skipped: the
// address is taken.
func startExampleRedis(t *testing.T) (skip string) {
	t.Helper()
	if conn, err := net.DialTimeout("tcp", exampleRedisAddr, time.Second); err == nil {
		conn.Close()
		return exampleRedisAddr + " is taken on this machine: something answers there"
	}
	redistest.Start(t, redistest.Options{Addr: exampleRedisAddr})
	return ""
}

// serveExample runs a serving command's example until it serves, then
// stops it. An example whose address is taken on this machine (something
// answers there: a registry running on the default port) is skipped.
func serveExample(t *testing.T, addr string, args []string) result {
	t.Helper()
	for i, a := range args {
		if a == "--addr" && i+1 < len(args) {
			addr = args[i+1]
		}
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Skipf("%s is taken on this machine: something answers there", addr)
	}
	return startServing(t, args...).stop()
}

func TestShellWords(t *testing.T) {
	got := shellWords(t, `  quiver search "export this table"  --limit 3 'a b'c`)
	want := []string{"quiver", "search", "export this table", "--limit", "3", "a bc"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("shellWords = %q, want %q", got, want)
	}
}
