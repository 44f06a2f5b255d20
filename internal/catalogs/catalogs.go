package catalogs

import (
	"bytes"
	_ "embed"
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

var (
	//go:embed workspace.json
	workspace []byte
	//go:embed workspace_queries.jsonl
	workspaceQueries []byte
)

// Workspace returns a copy of workspace.json, the data-workspace catalog
// generated from the records design.
func Workspace() []byte { return bytes.Clone(workspace) }

// WorkspaceQueries returns a copy of workspace_queries.jsonl, the requests
// labelled with the workspace tools that answer them.
func WorkspaceQueries() []byte { return bytes.Clone(workspaceQueries) }
