package tokencount

import (
	"testing"

	"github.com/quiver-go/quiver/tools"
)

func TestWireNamesAreProviderSafe(t *testing.T) {
	for in, want := range map[string]string{
		"openTable":                    "openTable",
		"workspace.startExport":        "workspace_startExport",
		"@scope/server.read_graph":     "_scope_server_read_graph",
		"日本.tool":                      "___tool",
		string(make([]byte, 80)) + "x": "",
	} {
		got := wireName(in)
		if want != "" && got != want {
			t.Errorf("wireName(%q) = %q, want %q", in, got, want)
		}
		if !tools.ValidWireName(got) {
			t.Errorf("wireName(%q) = %q is not a valid wire name", in, got)
		}
	}
}
