package dsl_test

import (
	"testing"

	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
	"github.com/quiver-go/quiver/tools"
)

// oneTool declares toolset "records" with one tool, "list", whose DSL is fn.
func oneTool(fn func()) func() {
	return func() { Toolset("records", func() { Tool("list", "List records", fn) }) }
}

// seriesService declares service "metrics" with a method "series" whose
// result carries a chart sidecar and evidence, and an agent whose inline
// toolset declares tool with fn.
func seriesService(fn func()) func() {
	return func() {
		Service("metrics", func() {
			Method("series", func() {
				Payload(func() {
					Attribute("session_id", String)
					Attribute("device", String)
					Required("session_id", "device")
				})
				Result(func() {
					Attribute("summary", String)
					Attribute("chart_sidecar", ArrayOf(Float64))
					Attribute("evidence", ArrayOf(String))
					Attribute("total", Int)
				})
			})
			Agent("analyst", "Explain device metrics.", func() {
				Use("metrics", func() { Tool("get_time_series", "Get time series data", fn) })
			})
		})
	}
}

func TestServerDataEvaluates(t *testing.T) {
	root := mustRun(t, seriesService(func() {
		Args(func() {
			Attribute("device", String)
			Required("device")
		})
		Return(func() { Attribute("summary", String) })
		ServerData("metrics.time_series", func() {
			Attribute("data_points", ArrayOf(Float64))
			Required("data_points")
		})
		ServerData("metrics.chart_points", ArrayOf(Float64), "Chart points", func() {
			AudienceInternal()
			FromMethodResultField("chart_sidecar")
		})
		ServerData("audit.evidence", ArrayOf(String), func() {
			Description("Evidence references")
			AudienceEvidence()
			FromMethodResultField("evidence")
		})
		ServerData("ui.card", String, func() { AudienceTimeline() })
		BindTo("series")
	}))
	tool := root.Agents[0].Uses[0].Inline.Tool("get_time_series")
	if len(tool.ServerData) != 4 || tool.ServerData[3].Audience != tools.AudienceTimeline {
		t.Fatalf("server data = %+v", tool.ServerData)
	}
	series, chart, evidence := tool.ServerData[0], tool.ServerData[1], tool.ServerData[2]
	if series.Audience != tools.AudienceTimeline || series.Schema == nil || series.FromMethodResultField != "" {
		t.Errorf("timeline is the default audience: %+v", series)
	}
	if chart.Audience != tools.AudienceInternal || chart.Description != "Chart points" || chart.FromMethodResultField != "chart_sidecar" {
		t.Errorf("chart = %+v", chart)
	}
	if evidence.Audience != tools.AudienceEvidence || evidence.Description != "Evidence references" || tool.ServerDataKind("audit.evidence") != evidence {
		t.Errorf("evidence = %+v", evidence)
	}
	if m := tool.BoundMethod(); m == nil || m.Name != "series" {
		t.Errorf("bound method = %v", m)
	}
}

func TestServerDataRules(t *testing.T) {
	t.Run("only in a tool", func(t *testing.T) {
		wantError(t, func() { Toolset("records", func() { ServerData("k", String) }) }, "ServerData: must be used in a Tool")
	})
	t.Run("the kind is named", func(t *testing.T) {
		wantError(t, oneTool(func() { ServerData(" ", String) }), "ServerData: the kind is empty", "tool_features_test.go:")
	})
	t.Run("kinds are unique per tool", func(t *testing.T) {
		wantError(t, oneTool(func() { ServerData("k", String); ServerData("k", Int) }), `ServerData: kind "k" is declared twice in the tool`)
	})
	t.Run("the schema is not empty", func(t *testing.T) {
		wantError(t, oneTool(func() { ServerData("k", func() {}) }), `ServerData: "k" declares an empty schema`)
	})
	t.Run("audiences only in server data", func(t *testing.T) {
		wantError(t, oneTool(func() { AudienceInternal() }), "AudienceInternal: must be used in a ServerData")
	})
	t.Run("one audience", func(t *testing.T) {
		wantError(t, oneTool(func() {
			ServerData("k", String, func() { AudienceInternal(); AudienceEvidence() })
		}), `AudienceEvidence: the audience of server data "k" is already "internal"`)
	})
	t.Run("FromMethodResultField only in server data", func(t *testing.T) {
		wantError(t, oneTool(func() { FromMethodResultField("x") }), "FromMethodResultField: must be used in a ServerData")
	})
	t.Run("FromMethodResultField needs BindTo", func(t *testing.T) {
		wantError(t, oneTool(func() {
			ServerData("audit.evidence", ArrayOf(String), func() { FromMethodResultField("evidence") })
		}), `FromMethodResultField: "evidence": server data "audit.evidence" is projected from a method result, but the tool is not bound to a method: add BindTo`, "tool_features_test.go:")
	})
	t.Run("FromMethodResultField names a field of the method result", func(t *testing.T) {
		wantError(t, seriesService(func() {
			BindTo("series")
			ServerData("audit.evidence", ArrayOf(String), func() { FromMethodResultField("proof") })
		}), `FromMethodResultField: the result of method "series" of service "metrics" has no field "proof"`)
	})
}

func TestBoundedResultEvaluates(t *testing.T) {
	root := mustRun(t, func() {
		Toolset("devices", func() {
			Tool("list_devices", "List devices with pagination", func() {
				Args(func() {
					Attribute("site_id", String, "Site identifier")
					Attribute("cursor", String, "Opaque cursor of the next page")
					Required("site_id")
				})
				Return(func() {
					Attribute("devices", ArrayOf(String))
					Required("devices")
				})
				BoundedResult(func() {
					Cursor("cursor")
					NextCursor("next_cursor")
				})
			})
			Tool("list_alarms", "List alarms", func() {
				BoundedResult(func() { ContinueWith("more_alarms") })
			})
			Tool("more_alarms", "Continue the alarm listing", func() {
				Args(func() { Attribute("cursor", String) })
			})
			Tool("count", "Count devices", func() { BoundedResult() })
		})
	})
	ts := root.Toolset("devices")
	if got := ts.Tool("list_devices").Bounds.Spec(); *got != (tools.BoundsSpec{Cursor: "cursor", NextCursor: "next_cursor"}) {
		t.Errorf("direct cursor bounds = %+v", got)
	}
	if got := ts.Tool("list_alarms").Bounds.Spec(); *got != (tools.BoundsSpec{ContinueWith: "more_alarms"}) {
		t.Errorf("continued bounds = %+v", got)
	}
	if b := ts.Tool("count").Bounds; b == nil || *b.Spec() != (tools.BoundsSpec{}) {
		t.Errorf("bounds without paging = %+v", b)
	}
}

func TestBoundedResultRules(t *testing.T) {
	paged := func(args func(), bounds func()) func() {
		return oneTool(func() {
			Args(args)
			BoundedResult(bounds)
		})
	}
	optionalCursor := func() { Attribute("cursor", String) }
	for _, f := range []string{"returned", "truncated", "total", "refinement_hint", "next_cursor"} {
		t.Run("Return leaves "+f+" to the runtime", func(t *testing.T) {
			wantError(t, oneTool(func() {
				Return(func() { Attribute("items", ArrayOf(String)); Attribute(f, String) })
				BoundedResult()
			}), `BoundedResult: Return declares "`+f+`", a bounds field`)
		})
	}
	t.Run("Return leaves a renamed next cursor to the runtime", func(t *testing.T) {
		wantError(t, oneTool(func() {
			Args(optionalCursor)
			Return(func() { Attribute("page_token", String) })
			BoundedResult(func() { Cursor("cursor"); NextCursor("page_token") })
		}), `BoundedResult: Return declares "page_token"`)
	})
	t.Run("Cursor names a field of Args", func(t *testing.T) {
		wantError(t, paged(func() { Attribute("q", String) }, func() { Cursor("cursor") }), `Cursor: "cursor" is not a field of Args: declare it as an optional String`)
	})
	t.Run("Cursor is optional", func(t *testing.T) {
		wantError(t, paged(func() { Attribute("cursor", String); Required("cursor") }, func() { Cursor("cursor") }), `Cursor: "cursor" is required in Args: make it optional`)
	})
	t.Run("Cursor is a String", func(t *testing.T) {
		wantError(t, paged(func() { Attribute("cursor", Int) }, func() { Cursor("cursor") }), `Cursor: "cursor" must be a String field of Args, not int`)
	})
	t.Run("NextCursor needs Cursor", func(t *testing.T) {
		wantError(t, paged(optionalCursor, func() { NextCursor("next_cursor") }), `NextCursor: "next_cursor" needs Cursor`)
	})
	t.Run("NextCursor is not another bounds field", func(t *testing.T) {
		wantError(t, paged(optionalCursor, func() { Cursor("cursor"); NextCursor("total") }), `NextCursor: "total" is already a bounds field: use "next_cursor"`)
	})
	t.Run("ContinueWith excludes NextCursor", func(t *testing.T) {
		wantError(t, func() {
			Toolset("records", func() {
				Tool("list", "List records", func() {
					Args(optionalCursor)
					BoundedResult(func() { Cursor("cursor"); NextCursor("next_cursor"); ContinueWith("more") })
				})
				Tool("more", "More records", func() { Args(optionalCursor) })
			})
		}, `ContinueWith: "more" cannot be combined with NextCursor`)
	})
	t.Run("ContinueWith names a tool of the toolset", func(t *testing.T) {
		wantError(t, oneTool(func() { BoundedResult(func() { ContinueWith("more") }) }), `ContinueWith: toolset "records" has no tool "more" (its tools: list)`)
	})
	t.Run("ContinueWith takes local names", func(t *testing.T) {
		wantError(t, oneTool(func() { BoundedResult(func() { ContinueWith("records.list") }) }), `ContinueWith: "records.list": use the tool's local name "list"`)
	})
	t.Run("the ContinueWith tool takes the cursor", func(t *testing.T) {
		wantError(t, func() {
			Toolset("records", func() {
				Tool("list", "List records", func() { BoundedResult(func() { ContinueWith("more") }) })
				Tool("more", "More records")
			})
		}, `ContinueWith: "cursor" is not a field of Args of "more"`)
		wantError(t, func() {
			Toolset("records", func() {
				Tool("list", "List records", func() { BoundedResult(func() { ContinueWith("more") }) })
				Tool("more", "More records", func() { Args(func() { Attribute("cursor", String); Required("cursor") }) })
			})
		}, `ContinueWith: "cursor" is required in Args of "more": make it optional, the model continues without arguments`)
	})
	t.Run("paging functions only in BoundedResult", func(t *testing.T) {
		wantError(t, oneTool(func() { Cursor("cursor") }), "Cursor: must be used in a BoundedResult")
		wantError(t, oneTool(func() { NextCursor("next_cursor") }), "NextCursor: must be used in a BoundedResult")
		wantError(t, oneTool(func() { ContinueWith("more") }), "ContinueWith: must be used in a BoundedResult")
	})
	t.Run("paging fields are declared once", func(t *testing.T) {
		wantError(t, paged(optionalCursor, func() { Cursor("cursor"); Cursor("page") }), `Cursor: declared twice in the BoundedResult ("cursor", then "page")`)
	})
	t.Run("one BoundedResult per tool", func(t *testing.T) {
		wantError(t, oneTool(func() { BoundedResult(); BoundedResult() }), "BoundedResult: declared twice in the tool")
	})
	t.Run("a bound method requires only returned and truncated", func(t *testing.T) {
		wantError(t, func() {
			Service("catalog", func() {
				Method("list", func() {
					Result(func() {
						Attribute("items", ArrayOf(String))
						Attribute("returned", Int)
						Attribute("total", Int)
						Required("items", "returned", "total")
					})
				})
				Agent("browser", "Browse the catalog.", func() {
					Use("catalog", func() {
						Tool("list", "List items", func() { BindTo("list"); BoundedResult() })
					})
				})
			})
		}, `BoundedResult: the result of method "list" requires "total": only returned and truncated may be required`)
	})
}

func TestToolFeaturesOnlyInTools(t *testing.T) {
	for name, fn := range map[string]func(){
		"BoundedResult": func() { BoundedResult() },
		"BindTo":        func() { BindTo("m") },
		"Inject":        func() { Inject("session_id") },
	} {
		wantError(t, func() { Toolset("records", fn) }, name+": must be used in a Tool")
	}
}
