//go:build ignore

// Command toolset_gen writes workspace_toolset.json: the workspace
// toolset's full declaration as the records example's generated package
// gives it (Toolset()), exposures, confirmations and bounds included —
// what a provider publishes. Run by go generate ./internal/catalogs.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/quiver-go/quiver/examples/records/gen/toolsets/workspace"
)

func main() {
	b, err := json.MarshalIndent(workspace.Toolset(), "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("workspace_toolset.json", append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
