package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// workbenchTools declares the chart, workbook and SQL workbench tools.
func workbenchTools() {
	Tool("createChart", "Create a chart from a table, saved view or query: bar, line, area, scatter, pie or histogram, with x and y columns, an optional aggregation and an optional series split.", func() {
		Args(func() {
			Attribute("source", String, "Table, saved view or SELECT to chart.")
			Attribute("type", String, "Chart type.", func() { Enum("bar", "line", "area", "scatter", "pie", "histogram") })
			Attribute("x", String, "Column on the horizontal axis.")
			Attribute("y", ArrayOf(String), "Columns on the vertical axis.")
			Attribute("aggregate", String, "How to combine y values that share an x.", func() {
				Enum("sum", "avg", "count", "min", "max", "none")
				Default("sum")
			})
			Attribute("seriesBy", String, "Column whose values split the chart into series.")
			Attribute("title", String, "Chart title.")
			Required("source", "type", "x")
		})
		Return(func() {
			Attribute("chartId", String, "Identifies the new chart.")
			Required("chartId")
		})
		Confirmation(func() {
			Title("Create chart?")
			PromptTemplate("Create a {{ .type }} chart of {{ .source }} by {{ .x }}?")
			DeniedResultTemplate(`{"status":"denied","tool":"createChart","source":{{ json .source }}}`)
		})
		Tags("gated", "charts")
		Keywords("plot", "graph", "visualize", "trend")
		Exposure("full")
	})

	Tool("listCharts", "List charts with their type, source and the workbook they belong to.", func() {
		Args(func() {
			Attribute("source", String, "Only charts built from this table or saved view.")
			Attribute("workbook", String, "Only charts of this workbook.")
		})
		Return(func() {
			Attribute("charts", ArrayOf("ChartSummary"), "Charts, most recently changed first.")
			Required("charts")
		})
		Tags("silent", "charts")
		Keywords("dashboards", "graphs")
		Exposure("read_only")
	})

	Tool("openWorkbench", "Open the SQL workbench now, optionally with a query prefilled or a workbook loaded, so the user can edit and run queries next to their results.", func() {
		Args(func() {
			Attribute("sql", String, "Query to prefill in the editor.")
			Attribute("workbook", String, "Workbook to load in the workbench.")
		})
		Return(func() {
			Attribute("workbench", String, "Identifies the opened workbench tab.")
			Required("workbench")
		})
		Confirmation(func() {
			Title("Open workbench?")
			PromptTemplate("Open the SQL workbench now?")
			DeniedResultTemplate(`{"status":"denied","tool":"openWorkbench","hint":"The user declined; offer it with proposeOpenWorkbench instead."}`)
		})
		Tags("gated", "workbench", "navigation", "immediate")
		Keywords("sql editor", "console", "scratchpad")
		Exposure("full")
	})

	Tool("proposeOpenWorkbench", "Offer to open the SQL workbench as a chip, optionally with a query prefilled; it opens only when the user clicks it.", func() {
		Title("Propose opening the workbench")
		Args(func() {
			Attribute("sql", String, "Query to prefill in the editor.")
			Attribute("reason", String, "One short sentence shown on the chip, e.g. 'See the late orders'.")
		})
		Return(proposal)
		Tags("silent", "workbench", "navigation", "proposal")
		Keywords("suggest", "sql editor")
		Exposure("read_only")
	})

	Tool("createWorkbook", "Create a notebook-style workbook: an ordered list of SQL, markdown and chart cells that runs from top to bottom.", func() {
		Args(func() {
			Attribute("title", String, "Workbook title.")
			Attribute("cells", ArrayOf("Cell"), "Initial cells, in order.")
			Attribute("folder", String, "Folder to create the workbook in.")
			Required("title")
		})
		Return(func() {
			Attribute("workbook", String, "Identifies the new workbook.")
			Attribute("cells", Int, "Number of cells.")
			Required("workbook", "cells")
		})
		Confirmation(func() {
			Title("Create workbook?")
			PromptTemplate("Create workbook {{ quote .title }}?")
			DeniedResultTemplate(`{"status":"denied","tool":"createWorkbook","title":{{ json .title }}}`)
		})
		Tags("gated", "workbooks")
		Keywords("notebook", "analysis", "report")
		Exposure("full")
	})

	Tool("runWorkbookCell", "Run one cell of a workbook, or every cell from the top, and return the result of the last cell run.", func() {
		Args(func() {
			Attribute("workbook", String, "Workbook name or id.")
			Attribute("cellIndex", Int, "Zero-based index of the cell to run.", func() { Minimum(0) })
			Attribute("runAll", Boolean, "Run every cell from the top instead of one cell.")
			Required("workbook")
		})
		Return(func() {
			Attribute("cellIndex", Int, "Last cell run.")
			Attribute("columns", ArrayOf(String), "Column names of the last cell's result, for SQL cells.")
			Attribute("rows", ArrayOf(ArrayOf(Any)), "Rows of the last cell's result, for SQL cells.")
			Attribute("output", String, "Rendered output, for markdown and chart cells.")
			Required("cellIndex")
		})
		Confirmation(func() {
			Title("Run workbook cell?")
			PromptTemplate("Run workbook {{ .workbook }}?")
			DeniedResultTemplate(`{"status":"denied","tool":"runWorkbookCell","workbook":{{ json .workbook }}}`)
		})
		Tags("gated", "workbooks")
		Keywords("execute", "notebook", "rerun")
		Exposure("full")
	})
}
