package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
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
	for _, args := range [][]string{nil, {"catalog"}} {
		r := quiver(t, args...).mustSucceed(t)
		if !strings.Contains(r.stdout, "Available Commands:") {
			t.Errorf("quiver %v printed no help:\n%s", args, r.stdout)
		}
	}
}
