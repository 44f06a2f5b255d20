package design

import (
	. "goa.design/goa/v3/dsl"
)

// declareTypes declares the shared types the tools' Args and Return name
// (ArrayOf("Condition"), …). Design calls it before the toolset so that
// the names resolve when the tools' DSL runs.
func declareTypes() {
	// Argument shapes.
	Type("Condition", func() {
		Description("One filter condition on a column.")
		Attribute("column", String, "Column to test.")
		Attribute("operator", String, "Comparison to apply.", func() {
			Enum("eq", "ne", "lt", "lte", "gt", "gte", "contains", "startsWith", "in", "isNull", "isNotNull")
		})
		Attribute("value", Any, "Value to compare with: a string, number, boolean, or an array for 'in'. Omit for isNull and isNotNull.")
		Required("column", "operator")
	})
	Type("SortKey", func() {
		Description("One sort key.")
		Attribute("column", String, "Column to sort by.")
		Attribute("direction", String, "Sort direction.", func() {
			Enum("asc", "desc")
			Default("asc")
		})
		Required("column")
	})
	Type("Cell", func() {
		Description("One workbook cell.")
		Attribute("kind", String, "Cell kind.", func() { Enum("sql", "markdown", "chart") })
		Attribute("source", String, "SQL text, markdown text, or a chart id for chart cells.")
		Required("kind", "source")
	})
	Type("RowEdit", func() {
		Description("One row edit to stage.")
		Attribute("op", String, "Kind of edit.", func() { Enum("insert", "update", "delete") })
		Attribute("key", MapOf(String, Any), "Primary-key columns and values of the row to update or delete; omit for insert.")
		Attribute("values", MapOf(String, Any), "Column values to write, for insert and update.")
		Required("op")
	})

	// Result shapes.
	Type("TableSummary", func() {
		Attribute("name", String, "Table name, qualified with its schema.")
		Attribute("rows", Int64, "Approximate row count.")
		Attribute("owner", String, "Owner of the table.")
		Attribute("modifiedAt", String, "Last modification.", func() { Format(FormatDateTime) })
		Required("name", "rows")
	})
	Type("Column", func() {
		Attribute("name", String, "Column name.")
		Attribute("type", String, "SQL type.")
		Attribute("nullable", Boolean, "Whether the column accepts nulls.")
		Attribute("default", String, "Default expression, if any.")
		Attribute("comment", String, "Column comment, if any.")
		Required("name", "type", "nullable")
	})
	Type("WorkspaceMatch", func() {
		Attribute("kind", String, "Kind of object.", func() { Enum("table", "view", "chart", "workbook") })
		Attribute("id", String, "Identifier to pass to the tool that opens it.")
		Attribute("name", String, "Name of the object.")
		Attribute("snippet", String, "Text around the match.")
		Required("kind", "id", "name")
	})
	Type("ColumnMatch", func() {
		Attribute("table", String, "Table of the column.")
		Attribute("column", String, "Column name.")
		Attribute("type", String, "SQL type.")
		Attribute("comment", String, "Column comment, if any.")
		Required("table", "column", "type")
	})
	Type("IndexStat", func() {
		Attribute("name", String, "Index name.")
		Attribute("columns", ArrayOf(String), "Indexed columns, in index order.")
		Attribute("sizeBytes", Int64, "Size on disk.")
		Attribute("scans", Int64, "Index scans since statistics were reset.")
		Attribute("unused", Boolean, "No scan since statistics were reset.")
		Attribute("duplicateOf", String, "Index with the same columns, if any.")
		Required("name", "columns", "sizeBytes", "scans")
	})
	Type("Relation", func() {
		Attribute("direction", String, "Whether the table references the other one or is referenced by it.", func() {
			Enum("outgoing", "incoming")
		})
		Attribute("table", String, "The other table.")
		Attribute("columns", ArrayOf(String), "Joining columns of the table.")
		Attribute("otherColumns", ArrayOf(String), "Joining columns of the other table.")
		Attribute("constraint", String, "Foreign-key constraint name.")
		Required("direction", "table", "columns", "otherColumns")
	})
	Type("SavedView", func() {
		Attribute("view", String, "Identifies the saved view.")
		Attribute("name", String, "Name of the view.")
		Attribute("table", String, "Table of the view.")
		Attribute("owner", String, "Owner of the view.")
		Attribute("lastUsedAt", String, "Last use.", func() { Format(FormatDateTime) })
		Required("view", "name", "table")
	})
	Type("ChartSummary", func() {
		Attribute("chartId", String, "Identifies the chart.")
		Attribute("title", String, "Chart title.")
		Attribute("type", String, "Chart type.")
		Attribute("source", String, "Table, saved view or query the chart draws.")
		Attribute("workbook", String, "Workbook the chart belongs to, if any.")
		Required("chartId", "type", "source")
	})
	Type("StagedEdit", func() {
		Attribute("editId", String, "Identifies the staged edit.")
		Attribute("table", String, "Table the edit changes.")
		Attribute("op", String, "Kind of edit.", func() { Enum("insert", "update", "delete", "import", "schema") })
		Attribute("before", MapOf(String, Any), "Row before the edit, for update and delete.")
		Attribute("after", MapOf(String, Any), "Row after the edit, for insert and update.")
		Attribute("summary", String, "One-line description, for imports and schema changes.")
		Required("editId", "table", "op")
	})
}

// proposal is the result of every proposeX tool: a chip the user clicks to
// run the proposed action; nothing changes until they do.
func proposal() {
	Attribute("proposalId", String, "Identifies the chip shown to the user.")
	Attribute("label", String, "Text of the chip.")
	Attribute("status", String, "Always \"proposed\": nothing changes until the user clicks the chip.", func() {
		Enum("proposed")
	})
	Required("proposalId", "label", "status")
}
