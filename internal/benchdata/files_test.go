package benchdata

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDataShipsWithLicences checks that the repository's data folder holds
// every file the tests read, with the README and the upstream licence texts
// that must travel with it.
func TestDataShipsWithLicences(t *testing.T) {
	dir := Require(t)
	for _, f := range []string{
		MetaToolCatalogFile, MetaToolQueriesFile, LiveMCPCatalogFile, ToolSDKCatalogFile,
		"README.md",
		"licenses/LiveMCPBench-LICENSE",
		"licenses/awesome-mcp-registry-LICENSE",
		"licenses/MetaTool-LICENSE",
	} {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil || fi.Size() == 0 {
			t.Errorf("%s/%s: missing or empty (%v)", RelDir, f, err)
		}
	}
}

// TestToolsAndQueries reads the MetaTool files and checks their counts and
// the argument extraction on a catalog with schemas.
func TestToolsAndQueries(t *testing.T) {
	if got := len(Tools(t, MetaToolCatalogFile)); got != 199 {
		t.Errorf("MetaTool catalog: %d tools; want 199", got)
	}
	if got := len(Queries(t)); got != 20_614 {
		t.Errorf("MetaTool queries: %d; want 20614", got)
	}
	withArgs := 0
	for _, tool := range Tools(t, LiveMCPCatalogFile) {
		if len(tool.Args) > 0 {
			withArgs++
		}
	}
	if withArgs == 0 {
		t.Error("LiveMCP catalog: no tool has arguments; want inputSchema properties read")
	}
}

func TestReplicate(t *testing.T) {
	got := Replicate([]Tool{{Name: "a"}, {Name: "b"}}, 5)
	want := []string{"a", "b", "a#2", "b#2", "a#3"}
	for i, tool := range got {
		if tool.Name != want[i] {
			t.Errorf("Replicate[%d] = %q; want %q", i, tool.Name, want[i])
		}
	}
}
