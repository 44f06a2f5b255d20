package catalogs

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/tools/contract"
)

// WorkspaceFile and WorkspaceQueriesFile are the embedded files' paths in
// the repository, for messages that refer to them.
const (
	WorkspaceFile        = "internal/catalogs/workspace.json"
	WorkspaceQueriesFile = "internal/catalogs/workspace_queries.jsonl"
)

// WorkspaceSource is the file workspace.json is copied from: the
// tool_schemas.json goa gen writes for the workspace toolset of the records
// design. go:embed cannot reach outside this directory, so the copy is made
// by go generate and TestWorkspaceIsTheGeneratedCatalog fails when the two
// differ.
const WorkspaceSource = "examples/records/gen/toolsets/workspace/tool_schemas.json"

//go:generate cp ../../examples/records/gen/toolsets/workspace/tool_schemas.json workspace.json
//go:generate go run toolset_gen.go

var (
	//go:embed workspace.json
	workspace []byte
	//go:embed workspace_queries.jsonl
	workspaceQueries []byte
	//go:embed workspace_toolset.json
	workspaceToolset []byte
)

// WorkspaceToolsetFile is the embedded full declaration's path in the
// repository.
const WorkspaceToolsetFile = "internal/catalogs/workspace_toolset.json"

// WorkspaceToolset returns the workspace toolset's full declaration as the
// records example's generated package gives it (workspace.Toolset()):
// workspace.json is the MCP tools/list rendering of the same tools, which
// drops what only Quiver reads (exposure, confirmation, bounds). go
// generate writes it with toolset_gen.go; examples/records checks that it
// is current.
func WorkspaceToolset() (contract.ToolsetDeclaration, error) {
	var d contract.ToolsetDeclaration
	if err := json.Unmarshal(workspaceToolset, &d); err != nil {
		return d, fmt.Errorf("catalogs: %s: %w", WorkspaceToolsetFile, err)
	}
	return d, nil
}

// Workspace returns a copy of workspace.json, the data-workspace catalog
// generated from the records design.
func Workspace() []byte { return bytes.Clone(workspace) }

// WorkspaceQueries returns a copy of workspace_queries.jsonl, the requests
// labelled with the workspace tools that answer them.
func WorkspaceQueries() []byte { return bytes.Clone(workspaceQueries) }
