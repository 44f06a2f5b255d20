package dsl_test

// Seed 003, "CallHintTemplate et ResultHintTemplate", "Rappel de
// résultat", "Balises" and "Meta": one subtest per snippet.

import (
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

func TestSeed003HintAndMetadataSnippets(t *testing.T) {
	t.Run("003/CallHintTemplate/Exemple de base", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("search", "Search documents", func() {
				Args(func() {
					Attribute("query", String, "Search phrase")
					Attribute("limit", Int, "Maximum results", func() { Default(10) })
					Required("query")
				})
				Return(func() {
					Attribute("count", Int, "Number of results found")
					Attribute("results", ArrayOf(String), "Matching documents")
					Required("count", "results")
				})
				CallHintTemplate("Searching for: {{ .Query }}")
				ResultHintTemplate("Found {{ .Result.Count }} results")
			})
		}))
	})
	t.Run("003/CallHintTemplate/Champs de structure typés", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("get_device_status", "Get device status", func() {
				Args(func() {
					Attribute("device_id", String, "Device identifier")      // JSON: device_id
					Attribute("include_metrics", Boolean, "Include metrics") // JSON: include_metrics
					Required("device_id")
				})
				Return(func() {
					Attribute("device_name", String, "Device name")       // JSON: device_name
					Attribute("is_online", Boolean, "Online status")      // JSON: is_online
					Attribute("last_seen", String, "Last seen timestamp") // JSON: last_seen
					Required("device_name", "is_online")
				})
				// Use Go field names (PascalCase), not JSON keys
				CallHintTemplate("Checking status of {{ .DeviceID }}")
				ResultHintTemplate("{{ .Result.DeviceName }}: {{ if .Result.IsOnline }}online{{ else }}offline{{ end }}")
			})
		}))
	})
	t.Run("003/CallHintTemplate/Champs facultatifs", func(t *testing.T) {
		mustRun(t, func() {
			Item := Type("Item", func() { Attribute("name", String) })
			seedTool(func() {
				Tool("list_items", "List items with optional filter", func() {
					Args(func() {
						Attribute("category", String, "Optional category filter")
						Attribute("limit", Int, "Maximum items", func() { Default(50) })
					})
					Return(func() {
						Attribute("items", ArrayOf(Item), "Matching items")
						Attribute("total", Int, "Total count")
						Attribute("truncated", Boolean, "Results were truncated")
						Required("items", "total")
					})
					CallHintTemplate("Listing items{{ with .Category }} in {{ . }}{{ end }}")
					ResultHintTemplate("{{ .Result.Total }} items{{ if .Result.Truncated }} (truncated){{ end }}")
				})
			})()
		})
	})
	t.Run("003/CallHintTemplate/Exemple complet", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("analyze_data", "Analyze dataset", func() {
				Args(func() {
					Attribute("dataset_id", String, "Dataset identifier")
					Attribute("analysis_type", String, "Type of analysis", func() {
						Enum("summary", "detailed", "comparison")
					})
					Attribute("filters", ArrayOf(String), "Optional filters")
					Required("dataset_id", "analysis_type")
				})
				Return(func() {
					Attribute("insights", ArrayOf(String), "Analysis insights")
					Attribute("metrics", MapOf(String, Float64), "Computed metrics")
					Attribute("processing_time_ms", Int, "Processing time in milliseconds")
					Required("insights", "processing_time_ms")
				})
				CallHintTemplate("Analyzing {{ .DatasetID }} ({{ .AnalysisType }})")
				ResultHintTemplate("{{ count .Result.Insights }} insights in {{ .Result.ProcessingTimeMs }}ms")
			})
		}))
	})
	t.Run("003/ResultReminder", func(t *testing.T) {
		mustRun(t, func() {
			DataPoint := Type("DataPoint", func() {
				Attribute("timestamp", String)
				Attribute("value", Float64)
			})
			seedTool(func() {
				Tool("get_time_series", "Get time series data", func() {
					Args(func() {
						Attribute("device_id", String, "Device identifier")
						Attribute("start_time", String, "Start timestamp")
						Attribute("end_time", String, "End timestamp")
						Required("device_id", "start_time", "end_time")
					})
					Return(func() {
						Attribute("series", ArrayOf(DataPoint), "Time series data points")
						Attribute("summary", String, "Summary for the model")
						Required("series", "summary")
					})
					ResultReminder("The user sees a rendered graph of this data in the UI.")
				})
			})()
		})
	})
	t.Run("003/ResultReminder/Plusieurs outils", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("get_metrics", "Get device metrics", func() {
				Args(func() { /* ... */ Attribute("device_id", String) })
				Return(func() { /* ... */ Attribute("summary", String) })
				ResultReminder("Metrics are displayed as a dashboard widget.")
			})
			Tool("get_alerts", "Get active alerts", func() {
				Args(func() { /* ... */ Attribute("device_id", String) })
				Return(func() { /* ... */ Attribute("alerts", ArrayOf(String)) })
				ResultReminder("Alerts are shown in a priority-sorted list with severity indicators.")
			})
		}))
	})
	t.Run("003/Tags", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("delete_file", "Delete a file", func() {
				Args(func() { /* ... */ Attribute("path", String) })
				Tags("filesystem", "write", "destructive")
			})
		}))
	})
	t.Run("003/Meta", func(t *testing.T) {
		root := mustRun(t, func() {
			ResolveSourceArgs := Type("ResolveSourceArgs", func() { Attribute("source", String) })
			ResolveSourceResult := Type("ResolveSourceResult", func() { Attribute("id", String) })
			seedTool(func() {
				Tool("resolve_source", "Resolve a selectable source", func() {
					Args(ResolveSourceArgs)
					Return(ResolveSourceResult)
					Meta("example.chat.supplies_tool_input")
				})
			})()
		})
		if _, ok := root.Toolset("seed").Tool("resolve_source").Meta["example.chat.supplies_tool_input"]; !ok {
			t.Fatal("Meta was not recorded on the tool")
		}
	})
}
