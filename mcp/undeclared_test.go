package mcp_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/syncbuf"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/tools"
)

// A tool that declares no exposure, served without Config.Undeclared, is
// listed to no one: the server says so once, naming it, instead of
// hiding it in silence.
func TestUndeclaredToolsHiddenAreWarnedOf(t *testing.T) {
	for _, tt := range []struct {
		name       string
		undeclared tools.Exposure
		warned     bool
	}{
		{"without Undeclared", "", true},
		{"with Undeclared", tools.ExposureStaging, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncbuf.Buffer
			e := newEnv(t, func(c *mcp.Config) {
				c.ExposeAll = true
				c.Undeclared = tt.undeclared
				c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			e.mustConnect("full-key").names(t)
			got := logs.String()
			warned := strings.Contains(got, "declare no exposure") && strings.Contains(got, "misc_note") && strings.Contains(got, "Config.Undeclared")
			if warned != tt.warned || strings.Count(got, "declare no exposure") > 1 {
				t.Fatalf("warned %v, want %v; logs:\n%s", warned, tt.warned, got)
			}
		})
	}
}
