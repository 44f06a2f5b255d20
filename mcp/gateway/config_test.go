package gateway_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/mcp/gateway"
	"github.com/quiver-go/quiver/tools"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestParseConfigReadsWhatClientsWrite(t *testing.T) {
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "server-filesystem", "${HOME_DIR}/work"], "env": {"TOKEN": "${TOKEN}", "MODE": "${MODE:-fast}"}, "cwd": "/srv",
		          "exposure": "read_only", "tools": {"write_file": {"exposure": "staging"}, "files.move": {"exposure": "full"}}, "alwaysAllow": ["read"]},
		"docs": {"url": "https://docs.example.com/mcp?key=${DOCS_KEY}", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}, "type": "http", "maxConcurrentCalls": 4},
		"old": {"command": "x", "disabled": true}
	}, "globalShortcut": "Ctrl+Q"}`), env(map[string]string{"HOME_DIR": "/home/ann", "TOKEN": "tok-123456", "DOCS_KEY": "key-abcdef", "DOCS_TOKEN": "bearer-987654"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 2 || cfg.Servers[0].Name != "docs" || cfg.Servers[1].Name != "files" || !slices.Equal(cfg.Disabled, []string{"old"}) {
		t.Fatalf("servers = %+v, disabled %v", cfg.Servers, cfg.Disabled)
	}
	docs, files := cfg.Servers[0], cfg.Servers[1]
	if files.Upstream.Command != "npx" || !slices.Equal(files.Upstream.Args, []string{"-y", "server-filesystem", "/home/ann/work"}) ||
		!slices.Equal(files.Upstream.Env, []string{"MODE=fast", "TOKEN=tok-123456"}) || files.Upstream.Dir != "/srv" {
		t.Fatalf("files = %+v", files.Upstream)
	}
	if files.Exposure != tools.ExposureReadOnly || files.ToolExposure["write_file"] != tools.ExposureStaging || files.ToolExposure["files.move"] != tools.ExposureFull {
		t.Fatalf("files exposure = %q %v", files.Exposure, files.ToolExposure)
	}
	if files.MaxConcurrentCalls != gateway.DefaultMaxConcurrentCalls || docs.MaxConcurrentCalls != 4 {
		t.Fatalf("max concurrent calls = %d, %d", files.MaxConcurrentCalls, docs.MaxConcurrentCalls)
	}
	if docs.Upstream.URL != "https://docs.example.com/mcp?key=key-abcdef" || docs.Upstream.Header.Get("Authorization") != "Bearer bearer-987654" {
		t.Fatalf("docs = %+v", docs.Upstream)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `"alwaysAllow"`) {
		t.Fatalf("warnings = %v", cfg.Warnings)
	}
	for _, secret := range []string{"tok-123456", "key-abcdef", "bearer-987654"} {
		if got := cfg.Scrub("it failed with " + secret); strings.Contains(got, secret) || !strings.Contains(got, "[redacted]") {
			t.Fatalf("Scrub kept %s: %s", secret, got)
		}
	}
}

func TestParseConfigRefusesWhatCannotWork(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"not json", `{"mcpServers": {`, "line 1"},
		{"no servers object", `{"servers": {}}`, `no "mcpServers" object`},
		{"nothing to start", `{"mcpServers": {"a": {"command": "x", "disabled": true}}}`, "lists no server to start"},
		{"neither", `{"mcpServers": {"a": {}}}`, `neither "command"`},
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`, `both "command" and "url"`},
		{"sse", `{"mcpServers": {"a": {"url": "http://h/sse", "type": "sse"}}}`, `"sse"`},
		{"bad url", `{"mcpServers": {"a": {"url": "ftp://h/mcp"}}}`, "http:// or https://"},
		{"headers on a command", `{"mcpServers": {"a": {"command": "x", "headers": {"A": "b"}}}}`, `"headers" are for a "url"`},
		{"env on a url", `{"mcpServers": {"a": {"url": "http://h/mcp", "env": {"A": "b"}}}}`, `"args", "env" and "cwd"`},
		{"bad tier", `{"mcpServers": {"a": {"command": "x", "exposure": "admin"}}}`, `"admin" is not read_only`},
		{"bad tool tier", `{"mcpServers": {"a": {"command": "x", "tools": {"t": {"exposure": "root"}}}}}`, `"root" is not read_only`},
		{"negative limit", `{"mcpServers": {"a": {"command": "x", "maxConcurrentCalls": -1}}}`, "negative"},
		{"args not an array", `{"mcpServers": {"a": {"command": "x", "args": "--flag"}}}`, `"args" must be an array`},
		{"unset variable", `{"mcpServers": {"a": {"command": "x", "env": {"T": "${NOT_SET}"}}}}`, "NOT_SET is not set"},
		{"unclosed", `{"mcpServers": {"a": {"command": "x", "args": ["${OOPS"]}}}`, "unclosed ${"},
		{"bad name", `{"mcpServers": {"a b": {"command": "x"}}}`, "no toolset name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := gateway.ParseConfig([]byte(c.file), noEnv)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
		})
	}
}

// TestSecretsAreNeverLoggedOrReported: the values of the variables, env
// and headers of servers that fail appear in no log line and no status.
func TestSecretsAreNeverLoggedOrReported(t *testing.T) {
	secrets := map[string]string{
		"SECRET_PATH": "path-s3cr3t-aa11", "SECRET_ARG": "arg-s3cr3t-bb22", "SECRET_ENV": "env-s3cr3t-cc33",
		"SECRET_KEY": "key-s3cr3t-dd44", "SECRET_TOKEN": "tok-s3cr3t-ee55",
	}
	addr := registrytest.FreeAddr(t) // nothing listens there
	file := `{"mcpServers": {
		"alpha": {"command": "` + testServer(t) + `", "exposure": "read_only"},
		"cmd":   {"command": "/nonexistent/${SECRET_PATH}/server", "args": ["--key", "${SECRET_ARG}"], "env": {"API_KEY": "${SECRET_ENV}", "LITERAL": "lit-s3cr3t-ff66"}},
		"web":   {"url": "http://` + addr + `/mcp?key=${SECRET_KEY}", "headers": {"Authorization": "Bearer ${SECRET_TOKEN}", "X-Api-Key": "hdr-s3cr3t-gg77"}}
	}}`
	s := startStack(t, file, env(secrets), "")
	for _, name := range []string{"cmd", "web"} {
		s.waitStatus(t, name, "failed", func(st gateway.Status) bool { return st.State == gateway.Failed })
	}
	s.waitStatus(t, "alpha", "served", func(st gateway.Status) bool { return st.State == gateway.Serving })
	var said strings.Builder
	said.WriteString(s.log.String())
	for _, st := range s.gw.Status() {
		said.WriteString(st.Err + "\n")
	}
	if !strings.Contains(said.String(), "[redacted]") {
		t.Fatalf("nothing was redacted: the failures do not quote the command and URL?\n%s", said.String())
	}
	all := append(slices.Collect(mapValues(secrets)), "lit-s3cr3t-ff66", "hdr-s3cr3t-gg77")
	for _, secret := range all {
		if strings.Contains(said.String(), secret) {
			t.Fatalf("secret %s was said:\n%s", secret, said.String())
		}
	}
}

func mapValues(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}
