package gateway_test

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/mcp/gateway"
)

// FuzzParseConfig: any file is parsed or refused without a panic, and an
// error never quotes the value of a variable it expanded.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["${S}"], "env": {"K": "${S:-d}"}}}}`,
		`{"mcpServers": {"a": {"url": "https://h/mcp?k=${S}", "headers": {"A": "Bearer ${S}"}, "type": "http"}}}`,
		`{"mcpServers": {"a": {"command": "${S}", "exposure": "read_only", "tools": {"t": {"exposure": "full"}}}}}`,
		`{"mcpServers": {"a": {"command": "$${S}", "args": ["${", "${1X}", "$"]}}}`,
		`{"mcpServers": null}`, `[]`, `{"mcpServers": {"a": 1}}`,
	} {
		f.Add(seed)
	}
	const secret = "fuzz-secret-value-1234"
	lookup := func(k string) (string, bool) {
		if k == "S" {
			return secret, true
		}
		return "", false
	}
	f.Fuzz(func(t *testing.T, file string) {
		cfg, err := gateway.ParseConfig([]byte(file), lookup)
		if err != nil {
			if strings.Contains(err.Error(), secret) && !strings.Contains(file, secret) {
				t.Fatalf("the error quotes the secret: %v", err)
			}
			return
		}
		if len(cfg.Servers) == 0 {
			t.Fatal("a configuration without servers was accepted")
		}
		if got := cfg.Scrub(secret); strings.Contains(file, "${S") && strings.Contains(got, secret) {
			// the secret was expanded somewhere: Scrub must hide it
			for _, s := range cfg.Servers {
				if strings.Contains(strings.Join(append(append(s.Upstream.Args, s.Upstream.Env...), s.Upstream.Command, s.Upstream.URL), " "), secret) {
					t.Fatalf("Scrub kept an expanded secret: %q", got)
				}
			}
		}
	})
}
