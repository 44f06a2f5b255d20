package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// tablesTools declares the table tools: listing, opening, reading,
// counting, importing, and searching the workspace.
func tablesTools() {
	Tool("listTables", "List the tables in the current workspace with their row counts, owners and last-modified times. Use it to find the exact table name before opening, querying or exporting a table.", func() {
		Args(func() {
			Attribute("schema", String, "Database schema to list; every schema when omitted.")
			Attribute("nameContains", String, "Only tables whose name contains this text, ignoring case.")
			Attribute("limit", Int, "Maximum number of tables to return.", func() {
				Minimum(1)
				Maximum(500)
				Default(100)
			})
		})
		Return(func() {
			Attribute("tables", ArrayOf("TableSummary"), "Tables of the workspace, by name.")
			Required("tables")
		})
		BoundedResult()
		Tags("silent", "tables")
		Keywords("datasets", "inventory")
		Exposure("read_only")
	})

	Tool("openTable", "Open a table in the user's main grid right away, replacing the current view. Use proposeOpenTable instead when the user has not clearly asked to switch views.", func() {
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("focusColumn", String, "Column to scroll into view.")
			Attribute("rowKey", String, "Primary-key value of a row to select after opening.")
			Required("table")
		})
		Return(func() {
			Attribute("table", String, "Table now shown in the main grid.")
			Attribute("viewId", String, "Identifies the grid view that replaced the previous one.")
			Required("table", "viewId")
		})
		CallHintTemplate("Opening {{ .table }}")
		Confirmation(func() {
			Title("Open table?")
			PromptTemplate("Open table {{ .table }} in your grid now, replacing the current view?")
			DeniedResultTemplate(`{"status":"denied","tool":"openTable","table":{{ json .table }},"hint":"The user declined; offer the table with proposeOpenTable instead."}`)
		})
		Tags("gated", "tables", "navigation", "immediate")
		Keywords("show", "view", "grid")
		Exposure("full")
	})

	Tool("proposeOpenTable", "Offer to open a table: shows the user a chip and changes nothing until they click it. Prefer it to openTable when the request is ambiguous or the user is in the middle of something else.", func() {
		Title("Propose opening a table")
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("reason", String, "One short sentence shown on the chip, e.g. 'See the late orders'.")
			Required("table")
		})
		Return(proposal)
		Tags("silent", "tables", "navigation", "proposal")
		Keywords("suggest", "show", "grid")
		Exposure("read_only")
	})

	Tool("describeTable", "Return a table's columns with their types, nullability, defaults and comments, and its primary key.", func() {
		Title("Describe table schema")
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("includeComments", Boolean, "Include column comments; they can be long.")
			Required("table")
		})
		Return(func() {
			Attribute("table", String, "Table described.")
			Attribute("columns", ArrayOf("Column"), "Columns in table order.")
			Attribute("primaryKey", ArrayOf(String), "Columns of the primary key, in key order.")
			Required("table", "columns")
		})
		Tags("silent", "schema")
		Keywords("schema", "columns", "types", "ddl", "structure")
		Exposure("read_only")
	})

	Tool("previewRows", "Fetch a small sample of rows from a table, optionally filtered and sorted, to look at the data without opening it in the grid.", func() {
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("filter", String, "Filter expression in the workspace filter syntax, e.g. status = 'late' and total > 100.")
			Attribute("orderBy", ArrayOf(String), "Sort keys such as 'created_at desc'.")
			Attribute("limit", Int, "Number of rows to return.", func() {
				Minimum(1)
				Maximum(200)
				Default(20)
			})
			Required("table")
		})
		Return(func() {
			Attribute("columns", ArrayOf(String), "Column names, in the order of each row's values.")
			Attribute("rows", ArrayOf(ArrayOf(Any)), "Sampled rows, one array of values per row.")
			Required("columns", "rows")
		})
		BoundedResult()
		Tags("silent", "tables")
		Keywords("sample", "head", "peek", "example rows")
		Exposure("read_only")
	})

	Tool("countRows", "Count the rows of a table, optionally only those matching a filter and optionally grouped by one column.", func() {
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("filter", String, "Filter expression in the workspace filter syntax, e.g. status = 'late' and total > 100.")
			Attribute("groupBy", String, "Column to group the counts by.")
			Required("table")
		})
		Return(func() {
			Attribute("count", Int64, "Rows matching the filter.")
			Attribute("groups", MapOf(String, Int64), "Row count per value of groupBy, when grouped.")
			Required("count")
		})
		Tags("silent", "tables")
		Keywords("how many", "total", "number of")
		Exposure("read_only")
	})

	Tool("importFile", "Import an uploaded CSV, Excel or Parquet file into a new or existing table. The import is staged and written only by commitStagedEdits.", func() {
		Title("Import file into table")
		Args(func() {
			Attribute("fileId", String, "Id of the uploaded file.")
			Attribute("table", String, "Target table; created when mode is 'create'.")
			Attribute("mode", String, "How to treat an existing table.", func() {
				Enum("create", "append", "replace")
				Default("create")
			})
			Attribute("hasHeader", Boolean, "Whether the first row holds column names (CSV and Excel).")
			Attribute("delimiter", String, "Field delimiter for CSV files.", func() { Default(",") })
			Required("fileId", "table")
		})
		Return(func() {
			Attribute("table", String, "Table the file is staged into.")
			Attribute("stagedRows", Int, "Rows staged for import.")
			Attribute("editId", String, "Staged edit holding the import; commitStagedEdits writes it.")
			Required("table", "stagedRows", "editId")
		})
		ResultReminder("The import is staged, not written: the user reviews it and commitStagedEdits writes it.")
		Confirmation(func() {
			Title("Import file into table?")
			PromptTemplate("Stage file {{ .fileId }} for import into table {{ .table }}?")
			DeniedResultTemplate(`{"status":"denied","tool":"importFile","table":{{ json .table }}}`)
		})
		Tags("gated", "tables", "staged")
		Keywords("upload", "load csv", "ingest", "spreadsheet")
		Exposure("staging")
	})

	Tool("searchWorkspace", "Search the names and descriptions of tables, saved views, charts and workbooks across the workspace.", func() {
		Args(func() {
			Attribute("text", String, "Words to look for.")
			Attribute("kinds", ArrayOf(String, func() { Enum("table", "view", "chart", "workbook") }), "Kinds of object to search; all when omitted.")
			Required("text")
		})
		Return(func() {
			Attribute("matches", ArrayOf("WorkspaceMatch"), "Matching objects, best first.")
			Required("matches")
		})
		Tags("silent", "navigation")
		Keywords("find", "look up", "where is")
		Exposure("read_only")
	})
}
