package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// stagingTools declares the staged-edit tools: every write lands in a
// reviewable staging area first and reaches the database only through
// commitStagedEdits.
func stagingTools() {
	Tool("stageRowEdits", "Stage inserts, updates and deletes of rows in a table. Nothing is written until commitStagedEdits; the grid highlights staged changes.", func() {
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("edits", ArrayOf("RowEdit"), "Edits to stage, applied in order.")
			Required("table", "edits")
		})
		Return(func() {
			Attribute("edits", ArrayOf("StagedEdit"), "Edits staged, in order.")
			Required("edits")
		})
		ResultReminder("Staged edits are not written: the user reviews them and commitStagedEdits writes them.")
		Confirmation(func() {
			Title("Stage row edits?")
			PromptTemplate("Stage {{ count .edits }} row edit(s) in table {{ .table }}?")
			DeniedResultTemplate(`{"status":"denied","tool":"stageRowEdits","table":{{ json .table }}}`)
		})
		Tags("gated", "staged edits", "staged")
		Keywords("edit cells", "change value", "update rows", "delete rows", "insert rows")
		Exposure("staging")
	})

	Tool("stageSchemaChange", "Stage a change to a table's structure: add, rename or drop a column, change a column's type, or create or drop an index. Applied only by commitStagedEdits.", func() {
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("change", String, "Kind of change.", func() { Enum("addColumn", "renameColumn", "dropColumn", "alterType", "createIndex", "dropIndex") })
			Attribute("column", String, "Column to add, rename, drop or retype.")
			Attribute("newName", String, "New column name, for renameColumn.")
			Attribute("type", String, "SQL type, for addColumn and alterType.")
			Attribute("indexColumns", ArrayOf(String), "Columns of the index, for createIndex.")
			Required("table", "change")
		})
		Return(func() {
			Attribute("edit", "StagedEdit", "Staged change.")
			Required("edit")
		})
		ResultReminder("The schema change is staged, not applied: commitStagedEdits applies it.")
		Confirmation(func() {
			Title("Stage schema change?")
			PromptTemplate("Stage a {{ .change }} on table {{ .table }}?")
			DeniedResultTemplate(`{"status":"denied","tool":"stageSchemaChange","table":{{ json .table }}}`)
		})
		Tags("gated", "staged edits", "schema", "staged")
		Keywords("alter table", "add column", "rename column", "create index", "ddl")
		Exposure("staging")
	})

	Tool("listStagedEdits", "List the edits staged but not yet committed, per table, with a before and after diff of each changed row.", func() {
		Args(func() {
			Attribute("table", String, "Only edits of this table.")
		})
		Return(func() {
			Attribute("edits", ArrayOf("StagedEdit"), "Staged edits, per table, oldest first.")
			Required("edits")
		})
		Tags("silent", "staged edits")
		Keywords("pending changes", "diff", "review changes")
		Exposure("read_only")
	})

	Tool("commitStagedEdits", "Write staged edits to the database in one transaction: all of them, or those of one table. Fails as a whole if any edit conflicts with a newer change.", func() {
		Args(func() {
			Attribute("table", String, "Only commit edits of this table.")
			Attribute("message", String, "Note recorded in the change history.")
		})
		Return(func() {
			Attribute("committed", Int, "Edits written.")
			Attribute("tables", ArrayOf(String), "Tables changed.")
			Required("committed", "tables")
		})
		Confirmation(func() {
			Title("Commit staged edits?")
			PromptTemplate("Write the staged edits to the database in one transaction?")
			DeniedResultTemplate(`{"status":"denied","tool":"commitStagedEdits","hint":"The edits stay staged; the user can review them with listStagedEdits."}`)
		})
		Tags("gated", "staged edits", "staged")
		Keywords("save changes", "apply changes", "write to database")
		Exposure("excluded")
	})

	Tool("discardStagedEdits", "Throw away staged edits that have not been committed: all of them, those of one table, or the given edits.", func() {
		Args(func() {
			Attribute("table", String, "Only discard edits of this table.")
			Attribute("editIds", ArrayOf(String), "Ids of the edits to discard.")
		})
		Return(func() {
			Attribute("discarded", Int, "Edits thrown away.")
			Required("discarded")
		})
		Confirmation(func() {
			Title("Discard staged edits?")
			PromptTemplate("Staged edits cannot be recovered once discarded. Throw away the selected ones?")
			DeniedResultTemplate(`{"status":"denied","tool":"discardStagedEdits","hint":"The edits stay staged."}`)
		})
		Tags("gated", "staged edits", "staged", "destructive")
		Keywords("undo", "revert", "cancel changes")
		Exposure("excluded")
	})
}
