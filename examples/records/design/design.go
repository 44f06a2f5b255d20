// Package design is the Goa design of the records example: the
// data-workspace assistant of seed 004, one declaration per tool.
//
// Every tool is declared once, in the file of its area (tables.go,
// query.go, views.go, exports.go, workbench.go, staging.go), and the
// declaration carries the tool's whole identity: name, description, Args
// and Return, its tier tag ("silent" reads run without interrupting
// anyone; "gated" tools run behind a Confirmation), Keywords, and its MCP
// Exposure. The only other list of tool names is the agent's Deferred
// call, which is the consumer's choice of what the model finds by search;
// every other set (inline, deferred, gated, exposure tiers) is derived
// from the evaluated design.
//
// The files import Goa's DSL and Quiver's DSL only: design_test.go reads
// them as text and fails on any other import. The exception is plugins.go,
// whose one blank import enables Quiver's code generator in goa gen.
//
// Why Design is a function: goa gen evaluates a design package's top-level
// declarations at package initialization, while dsltest.Run evaluates a
// function after resetting the engine. The declarations therefore live in
// Design, which the top-level var below calls once at initialization (for
// goa gen) and the tests call again through dsltest.Run. Nothing else may
// run at initialization: the shared types are named in Args and Return
// by name (ArrayOf("Condition")), so no top-level variable refers to an
// expression of the initialization-time engine.
package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// The declarations, made when goa gen loads the package.
var _ = declared()

func declared() bool {
	Design()
	return true
}

// Design makes the design's top-level declarations: the API, the shared
// types, the workspace toolset and the workspace service with its typed
// completion (completions.go) and its assistant agent.
func Design() {
	API("records", func() {
		Title("Records")
		Description("A data-workspace assistant that finds, reads, charts and exports tables, and stages every write for review.")
		Version("1.0")
	})

	declareTypes()

	workspace := Toolset("workspace", func() {
		Description("Tools of the data workspace: tables, queries, views, exports, charts, workbooks and staged edits.")
		tablesTools()
		queryTools()
		viewsTools()
		exportsTools()
		workbenchTools()
		stagingTools()
	})

	Service("workspace", func() {
		Description("The data workspace.")
		completions()
		Agent("assistant", `You help the user explore and change the tables of their data workspace.
Read freely: list, describe, preview, count and query tables without asking.
When the user has clearly asked to open, filter or export something, do it; when the request is ambiguous, propose it instead with the matching propose tool, which shows a chip the user clicks.
Every write is staged for review first and written only by commitStagedEdits, after the user approves it.
Some tools start hidden; find them with the search tool when the user names them.`, func() {
			Use(workspace, func() {
				// The tools a user asks for by name, never implicitly.
				Deferred(
					"startExport", "proposeStartExport", "getExportStatus", "cancelExport", // exports
					"getIndexStats",                                              // index statistics
					"listRelations",                                              // relation introspection
					"listStagedEdits", "commitStagedEdits", "discardStagedEdits", // staged edits
					"listSavedViews", "deleteSavedView", // saved specs
				)
			})
			RunPolicy(func() {
				DefaultCaps(MaxToolCalls(24), MaxRecoveryTurns(2))
				Timing(func() {
					Budget("3m")
					Plan("45s")
					Tools("2m")
				})
				History(func() { KeepRecentTurns(20) })
				Cache(func() {
					AfterSystem()
					AfterTools()
				})
				InterruptsAllowed(true)
				OnMissingFields("await_clarification")
			})
		})
	})
}
