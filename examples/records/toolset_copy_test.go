package main

import (
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/examples/records/gen/toolsets/workspace"
	"github.com/quiver-go/quiver/internal/catalogs"
)

// TestEmbeddedToolsetIsCurrent checks that the full declaration
// internal/catalogs embeds (what quiver serve publishes) is the generated
// Toolset() of this example, exposures and confirmations included.
func TestEmbeddedToolsetIsCurrent(t *testing.T) {
	embedded, err := catalogs.WorkspaceToolset()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(embedded)
	want, _ := json.Marshal(workspace.Toolset())
	if string(got) != string(want) {
		t.Fatalf("%s differs from workspace.Toolset(); regenerate it:\n\tgo generate ./internal/catalogs", catalogs.WorkspaceToolsetFile)
	}
}
