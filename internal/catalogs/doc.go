// Package catalogs embeds the example tool catalog files and their labelled
// query sets, so that the quiver command, the examples and tests work from
// any directory. It lives under internal/ because a command must not depend
// on the examples/ tree: the files here are data the repository ships, not
// an example to copy.
//
// workspace.json is the catalog of the data-workspace assistant (tables,
// queries, filters, saved views, exports, charts, workbooks, schema and
// index introspection, staged edits): a byte-for-byte copy of the
// tool_schemas.json that goa gen writes for the workspace toolset of the
// records design (examples/records/design), the one source of truth. It is
// never edited by hand: change the design, run goa gen, then
//
//	go generate ./internal/catalogs
//
// TestWorkspaceIsTheGeneratedCatalog fails while the copy differs from the
// generated file. Its tools are named by ident ("workspace.startExport"),
// in the MCP tools/list shape that package tools/catalogfile reads. Five of
// them come in pairs that do the same thing immediately or as a proposal
// the user clicks first (openTable and proposeOpenTable, startExport and
// proposeStartExport, ...), the near-duplicates that make tool selection
// hard.
//
// workspace_queries.jsonl holds user requests labelled with the idents of
// the tools that answer them, in the JSON Lines format package search/eval
// reads; TestWorkspaceQueries checks that every label names a tool.
//
// Every accessor returns a fresh copy: callers may modify what they get.
package catalogs
