package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// completions declares the workspace service's typed completions: answers
// the model gives directly, as a typed value, instead of calling a tool.
// summarize_records turns a conversation into the workspace's activity-log
// entry.
func completions() {
	Completion("summarize_records", "Summarize what was done in the workspace, for its activity log.", func() {
		Return(func() {
			Attribute("headline", String, "One sentence for the activity log.")
			Attribute("tables", ArrayOf(String), "The tables read or exported, qualified with their schema.")
			Attribute("lateOrders", Int, "Late orders counted, when they were.", func() { Minimum(0) })
			Attribute("exportIds", ArrayOf(String), "Exports started, by id.")
			Required("headline", "tables")
			Example(map[string]any{
				"headline":  "Counted the late orders and exported sales.orders to CSV.",
				"tables":    []any{"sales.orders"},
				"exportIds": []any{"exp-7"},
			})
		})
	})
}
