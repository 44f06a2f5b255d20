// Package catalogs embeds the example tool catalogs and their labelled
// query sets, so that the quiver command and tests work from any directory.
//
// workspace.json is a hand-written catalog of 40 tools for a data-workspace
// assistant (tables, filters, saved views, exports, charts, workbooks, schema
// and index introspection, staged edits), in the MCP tools/list shape that
// package tools/catalogfile reads. Five of its tools come in pairs that do
// the same thing immediately or as a proposal the user clicks first
// (openTable and proposeOpenTable, startExport and proposeStartExport, ...),
// the near-duplicates that make tool selection hard.
//
// workspace_queries.jsonl holds user requests labelled with the tools that
// answer them, in the JSON Lines format package search/eval reads.
//
// Every accessor returns a fresh copy: callers may modify what they get.
package catalogs
