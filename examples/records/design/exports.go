package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// exportsTools declares the tools that export tables, saved views and query
// results to files.
func exportsTools() {
	Tool("startExport", "Start exporting a table, saved view or query result to a file (CSV, Excel, Parquet or JSON Lines). The export runs in the background and returns an export id to follow with getExportStatus. Give exactly one of table, view or sql.", func() {
		Args(func() {
			Attribute("table", String, "Table to export.")
			Attribute("view", String, "Saved view to export, with its filters and sort.")
			Attribute("sql", String, "SELECT whose result to export.")
			Attribute("format", String, "File format of the export.", func() { Enum("csv", "xlsx", "parquet", "jsonl") })
			Attribute("includeHeader", Boolean, "Write column names as the first row (CSV and Excel).")
			Attribute("compression", String, "Compress the file.", func() {
				Enum("none", "gzip", "zip")
				Default("none")
			})
			Required("format")
		})
		Return(func() {
			Attribute("exportId", String, "Identifies the export for getExportStatus and cancelExport.")
			Attribute("status", String, "State of the export.", func() { Enum("queued", "running") })
			Required("exportId", "status")
		})
		Confirmation(func() {
			Title("Start export?")
			PromptTemplate("Start a {{ .format }} export now?")
			DeniedResultTemplate(`{"status":"denied","tool":"startExport","format":{{ json .format }},"hint":"The user declined; offer the export with proposeStartExport instead."}`)
		})
		Tags("gated", "exports", "immediate", "background")
		Keywords("download", "save as file", "spreadsheet", "extract")
		Exposure("full")
	})

	Tool("proposeStartExport", "Offer an export with the chosen source and format as a chip; the export starts only when the user clicks it.", func() {
		Title("Propose an export")
		Args(func() {
			Attribute("table", String, "Table to export.")
			Attribute("view", String, "Saved view to export.")
			Attribute("format", String, "File format of the export.", func() { Enum("csv", "xlsx", "parquet", "jsonl") })
			Attribute("label", String, "Chip text, e.g. 'Export late orders as CSV'.")
			Required("format")
		})
		Return(proposal)
		Tags("silent", "exports", "proposal")
		Keywords("suggest", "download")
		Exposure("read_only")
	})

	Tool("getExportStatus", "Report an export's progress and row count and, once it has finished, its download link (valid for 24 hours).", func() {
		Args(func() {
			Attribute("exportId", String, "Id returned by startExport.")
			Required("exportId")
		})
		Return(func() {
			Attribute("exportId", String, "Export reported.")
			Attribute("status", String, "State of the export.", func() { Enum("queued", "running", "done", "failed", "cancelled") })
			Attribute("progress", Float64, "Fraction done, from 0 to 1.")
			Attribute("rows", Int64, "Rows written so far.")
			Attribute("downloadUrl", String, "Download link once done, valid for 24 hours.")
			Attribute("error", String, "Why the export failed.")
			Required("exportId", "status")
		})
		Tags("silent", "exports")
		Keywords("download link", "progress", "is it done")
		Exposure("read_only")
	})

	Tool("cancelExport", "Cancel a running export and delete its partial file.", func() {
		Args(func() {
			Attribute("exportId", String, "Id returned by startExport.")
			Required("exportId")
		})
		Return(func() {
			Attribute("exportId", String, "Cancelled export.")
			Attribute("cancelled", Boolean, "Whether the export was still running.")
			Required("exportId", "cancelled")
		})
		Confirmation(func() {
			Title("Cancel export?")
			PromptTemplate("Cancel export {{ .exportId }} and delete its partial file?")
			DeniedResultTemplate(`{"status":"denied","tool":"cancelExport","exportId":{{ json .exportId }}}`)
		})
		Tags("gated", "exports")
		Keywords("stop", "abort")
		Exposure("full")
	})
}
