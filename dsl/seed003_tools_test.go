package dsl_test

// Seed 003, "Fonctions de l'outil": one subtest per snippet.

import (
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// seedTimeSeriesTypes declares the types the ServerData snippets refer to.
func seedTimeSeriesTypes() (point, serverData, evidence any) {
	TimeSeriesPoint := Type("TimeSeriesPoint", func() {
		Attribute("timestamp", String, "RFC3339 timestamp")
		Attribute("value", Float64, "Measured value")
		Required("timestamp", "value")
	})
	TimeSeriesServerData := Type("TimeSeriesServerData", func() {
		Attribute("data_points", ArrayOf(TimeSeriesPoint), "Full time series data")
		Attribute("unit", String, "Measurement unit")
		Attribute("resolution", String, "Data resolution (e.g., '1m', '5m', '1h')")
		Required("data_points")
	})
	Evidence := Type("Evidence", func() {
		Attribute("source", String, "Where the data comes from")
		Required("source")
	})
	return TimeSeriesPoint, TimeSeriesServerData, Evidence
}

func TestSeed003ToolSnippets(t *testing.T) {
	t.Run("003/Field vs Attribute/Attribute", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("search", "Search", func() {
				Args(func() {
					Attribute("query", String, "Search query")
					Attribute("limit", Int, "Maximum results", func() { Default(10) })
					Required("query")
				})
			})
		}))
	})
	t.Run("003/Field vs Attribute/Field", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("search", "Search", func() {
				Args(func() {
					Field(1, "query", String, "Search query")
					Field(2, "limit", Int, "Maximum results", func() { Default(10) })
					Required("query")
				})
			})
		}))
	})
	t.Run("003/Tool", func(t *testing.T) {
		root := mustRun(t, seedTool(func() {
			Tool("search", "Search indexed documentation", func() {
				Title("Document Search")
				Args(func() {
					Attribute("query", String, "Search phrase")
					Attribute("limit", Int, "Max results", func() { Default(5) })
					Required("query")
				})
				Return(func() {
					Attribute("documents", ArrayOf(String), "Matched snippets")
					Required("documents")
				})
				CallHintTemplate("Searching for: {{ .Query }}")
				ResultHintTemplate("Found {{ len .Result.Documents }} documents")
				Tags("docs", "search")
			})
		}))
		if tool := root.Toolset("seed").Tool("search"); tool.Title != "Document Search" {
			t.Fatalf("title = %q", tool.Title)
		}
	})
	t.Run("003/Args et retour", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("search", "Search documentation", func() {
				Args(func() {
					Attribute("query", String, "Search phrase")
					Attribute("limit", Int, "Max results", func() {
						Default(5)
						Minimum(1)
						Maximum(100)
					})
					Required("query")
				})
				Return(func() {
					Attribute("documents", ArrayOf(String), "Matched snippets")
					Attribute("count", Int, "Number of results")
					Required("documents", "count")
				})
			})
		}))
	})
	t.Run("003/Args et retour/Réutilisation des types", func(t *testing.T) {
		mustRun(t, func() {
			SearchParams := Type("SearchParams", func() {
				Attribute("query", String)
				Attribute("limit", Int)
				Required("query")
			})
			seedTool(func() {
				Tool("search", "Search documents", func() {
					Args(SearchParams)
					Return(func() {
						Attribute("results", ArrayOf(String))
					})
				})
			})()
		})
	})
	t.Run("003/ServerData/Audience", func(t *testing.T) {
		root := mustRun(t, func() {
			_, TimeSeriesServerData, Evidence := seedTimeSeriesTypes()
			Service("metrics", func() {
				Method("series", func() {
					Payload(func() { Attribute("device_id", String); Required("device_id") })
					Result(func() {
						Attribute("summary", String)
						Attribute("chart_sidecar", TimeSeriesServerData)
						Attribute("evidence", ArrayOf(Evidence))
					})
				})
				Agent("analyst", "Explain device metrics.", func() {
					Use("metrics", func() {
						Tool("get_time_series", "Get time series data", func() {
							Args(func() { Attribute("device_id", String); Required("device_id") })
							Return(func() { Attribute("summary", String) })
							BindTo("series")
							ServerData("metrics.time_series.chart_points", TimeSeriesServerData, func() {
								AudienceInternal()
								FromMethodResultField("chart_sidecar")
							})
							ServerData("audit.evidence", ArrayOf(Evidence), func() {
								AudienceEvidence()
								FromMethodResultField("evidence")
							})
						})
					})
				})
			})
		})
		tool := root.Agents[0].Uses[0].Inline.Tool("get_time_series")
		if len(tool.ServerData) != 2 || tool.ServerData[1].FromMethodResultField != "evidence" {
			t.Fatalf("server data = %+v", tool.ServerData)
		}
	})
	t.Run("003/ServerData", func(t *testing.T) {
		mustRun(t, func() {
			TimeSeriesPoint, _, _ := seedTimeSeriesTypes()
			seedTool(func() {
				Tool("get_time_series", "Get time series data", func() {
					Args(func() {
						Attribute("device_id", String, "Device identifier")
						Attribute("start_time", String, "Start timestamp (RFC3339)")
						Attribute("end_time", String, "End timestamp (RFC3339)")
						Required("device_id", "start_time", "end_time")
					})
					Return(func() {
						Attribute("summary", String, "Summary for the model")
						Attribute("count", Int, "Number of data points")
						Attribute("min_value", Float64, "Minimum value in range")
						Attribute("max_value", Float64, "Maximum value in range")
						Required("summary", "count")
					})
					ServerData("metrics.time_series", func() {
						Attribute("data_points", ArrayOf(TimeSeriesPoint), "Full time series data")
						Attribute("metadata", MapOf(String, String), "Additional metadata")
						Required("data_points")
					})
				})
			})()
		})
	})
	t.Run("003/ServerData/Type Goa", func(t *testing.T) {
		mustRun(t, func() {
			_, TimeSeriesServerData, _ := seedTimeSeriesTypes()
			seedTool(func() {
				Tool("get_metrics", "Get device metrics", func() {
					Args(func() {
						Attribute("device_id", String, "Device identifier")
						Required("device_id")
					})
					Return(func() {
						Attribute("summary", String, "Metrics summary for the model")
						Attribute("point_count", Int, "Number of data points")
						Required("summary", "point_count")
					})
					ServerData("metrics.query", TimeSeriesServerData)
				})
			})()
		})
	})
	t.Run("003/BoundedResult", func(t *testing.T) {
		root := mustRun(t, func() {
			Device := Type("Device", func() {
				Attribute("id", String)
				Attribute("name", String)
				Required("id")
			})
			seedTool(func() {
				Tool("list_devices", "List devices with pagination", func() {
					Args(func() {
						Attribute("site_id", String, "Site identifier")
						Attribute("cursor", String, "Curseur opaque de la page suivante renvoyé par la page précédente")
						Required("site_id")
					})
					Return(func() {
						Attribute("devices", ArrayOf(Device), "List of devices")
						Required("devices")
					})
					BoundedResult(func() {
						Cursor("cursor")
						NextCursor("next_cursor")
					})
				})
			})()
		})
		b := root.Toolset("seed").Tool("list_devices").Bounds
		if b == nil || b.Cursor != "cursor" || b.NextCursor != "next_cursor" {
			t.Fatalf("bounds = %+v", b)
		}
	})
	t.Run("003/BoundedResult/ContinueWith", func(t *testing.T) {
		// The reference table lists ContinueWith without a snippet: the
		// runtime keeps the cursor and offers the named tool.
		mustRun(t, seedTool(func() {
			Tool("list_devices", "List devices", func() {
				Args(func() { Attribute("cursor", String) })
				Return(func() { Attribute("devices", ArrayOf(String)) })
				BoundedResult(func() { Cursor("cursor"); ContinueWith("list_devices") })
			})
		}))
	})
	t.Run("003/Title", func(t *testing.T) {
		mustRun(t, seedTool(func() {
			Tool("web_search", "Search the web", func() {
				Title("Web Search")
				Args(func() { /* ... */ Attribute("query", String) })
			})
		}))
	})
	t.Run("003/Confirmation", func(t *testing.T) {
		root := mustRun(t, func() {
			DangerousWriteArgs := Type("DangerousWriteArgs", func() {
				Attribute("key", String)
				Attribute("value", Any)
				Required("key", "value")
			})
			DangerousWriteResult := Type("DangerousWriteResult", func() {
				Attribute("summary", String)
				Attribute("key", String)
			})
			seedTool(func() {
				Tool("dangerous_write", "Write a stateful change", func() {
					Args(DangerousWriteArgs)
					Return(DangerousWriteResult)
					Confirmation(func() {
						Title("Confirm change")
						PromptTemplate(`Approve write: set {{ .key }} to {{ json .value }}`)
						DeniedResultTemplate(`{"summary":"Cancelled","key":{{ json .key }}}`)
					})
				})
			})()
		})
		if c := root.Toolset("seed").Tool("dangerous_write").Confirmation; c == nil || c.Title != "Confirm change" {
			t.Fatalf("confirmation = %+v", c)
		}
	})
	t.Run("003/BindTo", func(t *testing.T) {
		root := mustRun(t, func() {
			SearchPayload := Type("SearchPayload", func() {
				Attribute("query", String)
				Required("query")
			})
			SearchResult := Type("SearchResult", func() {
				Attribute("documents", ArrayOf(String))
			})
			Service("orchestrator", func() {
				Method("Search", func() {
					Payload(SearchPayload)
					Result(SearchResult)
				})
				Agent("chat", func() {
					Use("docs", func() {
						Tool("search", "Search documentation", func() {
							Args(SearchPayload)
							Return(SearchResult)
							BindTo("Search") // binds to method on same service
						})
					})
				})
			})
		})
		if b := root.Agents[0].Uses[0].Inline.Tool("search").Binding; b == nil || b.MethodName != "Search" {
			t.Fatalf("binding = %+v", b)
		}
	})
	t.Run("003/Inject", func(t *testing.T) {
		mustRun(t, func() {
			Service("data_service", func() {
				Method("get", func() {
					Payload(func() {
						Attribute("session_id", String)
						Attribute("query", String)
						Required("session_id", "query")
					})
					Result(func() { Attribute("data", ArrayOf(String)) })
				})
			})
			seedTool(func() {
				Tool("get_data", "Get data for current session", func() {
					Args(func() {
						Attribute("session_id", String, "Current session ID")
						Attribute("query", String, "Data query")
						Required("session_id", "query")
					})
					Return(func() { Attribute("data", ArrayOf(String)) })
					BindTo("data_service", "get")
					Inject("session_id") // metadata-backed
				})
				Tool("lookup_household", "Lookup scoped to a household", func() {
					Args(func() {
						Attribute("household_id", String, "Household to scope the search to.", func() {
							Pattern("^[a-z0-9-]+$")
						})
						Attribute("query", String, "Search query.")
						Required("household_id", "query")
					})
					Inject("household_id") // label-backed
				})
			})()
		})
	})
	t.Run("003/TerminalRun", func(t *testing.T) {
		for _, name := range []string{"TerminalRun", "Validations terminales"} {
			t.Run(name, func(t *testing.T) {
				root := mustRun(t, func() {
					TaskCompletionArgs := Type("TaskCompletionArgs", func() { Attribute("task_id", String); Required("task_id") })
					TaskCompletionResult := Type("TaskCompletionResult", func() { Attribute("ok", Boolean) })
					seedTool(func() {
						Tool("commit_task", "Commit the terminal task artifact", func() {
							Args(TaskCompletionArgs)
							Return(TaskCompletionResult)
							TerminalRun()
						})
					})()
				})
				if !root.Toolset("seed").Tool("commit_task").TerminalRun {
					t.Fatal("TerminalRun not recorded")
				}
			})
		}
	})
	t.Run("003/Bookkeeping", func(t *testing.T) {
		root := mustRun(t, func() {
			SetStepStatusArgs := Type("SetStepStatusArgs", func() { Attribute("step", String); Attribute("status", String) })
			SetStepStatusResult := Type("SetStepStatusResult", func() { Attribute("ok", Boolean) })
			seedTool(func() {
				Tool("set_step_status", "Update step status", func() {
					Args(SetStepStatusArgs)
					Return(SetStepStatusResult)
					Bookkeeping()
				})
			})()
		})
		if !root.Toolset("seed").Tool("set_step_status").Bookkeeping {
			t.Fatal("Bookkeeping not recorded")
		}
	})
}
