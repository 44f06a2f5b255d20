package main

import (
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/mcp"
)

func TestServeSessionFlagsDefaultAndApply(t *testing.T) {
	cmd := newServeCommand()
	for name, want := range map[string]string{
		"session-timeout": mcp.DefaultSessionTimeout.String(), "max-sessions": "1024", "max-sessions-per-key": "256",
		"body-timeout": mcp.DefaultBodyTimeout.String(), "max-reading-bodies": "64",
	} {
		f := cmd.Flags().Lookup(name)
		if f == nil || f.DefValue != want {
			t.Errorf("--%s: %+v, want default %s", name, f, want)
		}
	}
	var opts quickServeOptions
	opts.sessions.idle, opts.sessions.max, opts.sessions.perKey, opts.sessions.bodyTimeout, opts.sessions.readingBodies = 100*time.Millisecond, 3, 0, 0, 64
	var cfg mcp.Config
	opts.sessions.apply(&cfg)
	if cfg.SessionTimeout != 100*time.Millisecond || cfg.MaxSessions != 3 || cfg.MaxSessionsPerCredential != -1 || cfg.BodyTimeout != -1 || cfg.MaxReadingBodies != 64 {
		t.Fatalf("config = %+v: want the flags, 0 as no bound", cfg)
	}
	opts.addr = defaultServeAddr
	opts.sessions.max = -1
	if err := opts.check(); err == nil || !strings.Contains(err.Error(), "--max-sessions is negative") {
		t.Fatalf("negative --max-sessions: %v", err)
	}
}
