package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestOffline runs the program with no flags and compares what it prints
// with testdata/offline.golden: the setup, the portable search, the tool
// it loads, the call, its result and the answer. Keys in the environment
// are not read and nothing goes to the network.
func TestOffline(t *testing.T) {
	noNetwork(t)
	var read []string
	getenv := func(name string) string {
		read = append(read, name)
		return "sk-must-not-be-used"
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, getenv, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	if len(read) > 0 {
		t.Errorf("the offline run read %v from the environment", read)
	}
	checkGolden(t, "offline.golden", stdout.Bytes())
}

// TestUsageErrors checks that wrong flags or a missing key stop the
// program before anything runs, with exit code 2 and a message naming
// what to set.
func TestUsageErrors(t *testing.T) {
	noNetwork(t)
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"openai without its key", []string{"-provider", "openai", "-model", "gpt-5.4"}, map[string]string{anthropicKeyVar: "k"}, "needs an API key in OPENAI_API_KEY"},
		{"anthropic without its key", []string{"-provider", "anthropic", "-model", "claude-sonnet-4-5"}, map[string]string{openAIKeyVar: "k"}, "needs an API key in ANTHROPIC_API_KEY"},
		{"a blank key", []string{"-provider", "openai", "-model", "gpt-5.4"}, map[string]string{openAIKeyVar: "  "}, "needs an API key in OPENAI_API_KEY"},
		{"compat without a base URL", []string{"-provider", "compat", "-model", "qwen3:8b"}, nil, "-provider compat needs -base-url"},
		{"compat with a relative base URL", []string{"-provider", "compat", "-model", "qwen3:8b", "-base-url", "localhost:11434"}, nil, "is not an absolute http(s) URL"},
		{"a provider without a model", []string{"-provider", "anthropic"}, map[string]string{anthropicKeyVar: "k"}, "-provider anthropic needs -model"},
		{"an unknown provider", []string{"-provider", "gemini", "-model", "x"}, nil, `unknown -provider "gemini": use openai, anthropic, compat, bedrock, bedrock-openai or bedrock-converse`},
		{"a model without a provider", []string{"-model", "gpt-5.4"}, nil, "-model and -base-url need -provider"},
		{"an argument", []string{"weather"}, nil, `unexpected argument "weather"`},
		{"an unknown flag", []string{"-key", "x"}, nil, "flag provided but not defined: -key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, func(name string) string { return tc.env[name] }, &stdout, &stderr)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tc.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("something ran: %s", stdout.String())
			}
		})
	}
}

// TestHelp checks that -h prints the usage, names the key variables and
// exits 0.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, func(string) string { return "" }, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"-provider", "-model", "-base-url", openAIKeyVar, anthropicKeyVar, compatKeyVar} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage does not mention %s:\n%s", want, stderr.String())
		}
	}
}

// checkGolden compares got with testdata/name, or rewrites the file with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update after checking):\n%s", path, got)
	}
}

// noNetwork fails the test on any request through http.DefaultTransport,
// which the provider SDKs use unless given a client.
func noNetwork(t *testing.T) {
	t.Helper()
	saved := http.DefaultTransport
	http.DefaultTransport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("unexpected request: %s %s", r.Method, r.URL)
		return nil, errors.New("the test allows no network")
	})
	t.Cleanup(func() { http.DefaultTransport = saved })
}

// roundTripFunc is an http.RoundTripper from a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip implements http.RoundTripper.
func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
