package catalogs

import (
	"bytes"
	_ "embed"
)

// WorkspaceFile and WorkspaceQueriesFile are the embedded files' names, for
// messages that refer to them.
const (
	WorkspaceFile        = "examples/catalogs/workspace.json"
	WorkspaceQueriesFile = "examples/catalogs/workspace_queries.jsonl"
)

var (
	//go:embed workspace.json
	workspace []byte
	//go:embed workspace_queries.jsonl
	workspaceQueries []byte
)

// Workspace returns a copy of workspace.json, the data-workspace catalog.
func Workspace() []byte { return bytes.Clone(workspace) }

// WorkspaceQueries returns a copy of workspace_queries.jsonl, the requests
// labelled with the workspace tools that answer them.
func WorkspaceQueries() []byte { return bytes.Clone(workspaceQueries) }
