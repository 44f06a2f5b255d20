package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// viewsTools declares the tools of the open view (filters, sort) and of
// saved views.
func viewsTools() {
	Tool("applyFilter", "Filter the rows shown in the open table view immediately. Conditions combine with AND; a condition on a column that already has one replaces it.", func() {
		Args(func() {
			Attribute("conditions", ArrayOf("Condition"), "Conditions the shown rows must meet.")
			Required("conditions")
		})
		Return(func() {
			Attribute("viewId", String, "Filtered view.")
			Attribute("shownRows", Int64, "Rows the view shows after filtering.")
			Required("viewId", "shownRows")
		})
		Confirmation(func() {
			Title("Apply filter?")
			PromptTemplate("Filter the open view on {{ count .conditions }} condition(s) now?")
			DeniedResultTemplate(`{"status":"denied","tool":"applyFilter","conditions":{{ json .conditions }},"hint":"The user declined; offer the filter with proposeApplyFilter instead."}`)
		})
		Tags("gated", "filters", "immediate")
		Keywords("where", "only show", "narrow down", "hide rows")
		Exposure("full")
	})

	Tool("proposeApplyFilter", "Suggest a filter as a chip the user can click to apply to the open view; nothing changes until they do.", func() {
		Title("Propose a filter")
		Args(func() {
			Attribute("conditions", ArrayOf("Condition"), "Conditions the shown rows must meet.")
			Attribute("label", String, "Chip text, e.g. 'Only late orders'.")
			Required("conditions")
		})
		Return(proposal)
		Tags("silent", "filters", "proposal")
		Keywords("suggest", "where", "only show")
		Exposure("read_only")
	})

	Tool("clearFilters", "Remove filters from the open view: all of them, or only those on the given columns.", func() {
		Args(func() {
			Attribute("columns", ArrayOf(String), "Columns whose filters to remove; every filter when omitted.")
		})
		Return(func() {
			Attribute("viewId", String, "View whose filters were cleared.")
			Attribute("shownRows", Int64, "Rows the view shows now.")
			Required("viewId", "shownRows")
		})
		Tags("silent", "filters")
		Keywords("reset", "remove filter", "show all rows")
		Exposure("full")
	})

	Tool("sortView", "Sort the rows of the open view by one or more columns, replacing the current sort.", func() {
		Args(func() {
			Attribute("keys", ArrayOf("SortKey"), "Sort keys, most significant first.")
			Required("keys")
		})
		Return(func() {
			Attribute("viewId", String, "Sorted view.")
			Required("viewId")
		})
		Tags("silent", "views")
		Keywords("order by", "ascending", "descending", "newest first")
		Exposure("full")
	})

	Tool("saveView", "Save the open table's current filters, sort, hidden columns and column widths as a named view that can be reopened or shared.", func() {
		Args(func() {
			Attribute("name", String, "Name of the view, unique per table.")
			Attribute("description", String, "What the view is for.")
			Attribute("shared", Boolean, "Visible to everyone in the workspace when true; private otherwise.")
			Required("name")
		})
		Return(func() {
			Attribute("view", String, "Identifies the saved view.")
			Attribute("name", String, "Name it was saved under.")
			Required("view", "name")
		})
		Confirmation(func() {
			Title("Save view?")
			PromptTemplate("Save the current view as {{ quote .name }}?")
			DeniedResultTemplate(`{"status":"denied","tool":"saveView","name":{{ json .name }}}`)
		})
		Tags("gated", "saved views")
		Keywords("bookmark", "remember", "keep this layout")
		Exposure("full")
	})

	Tool("listSavedViews", "List saved views with their table, owner and last use, optionally only those of one table.", func() {
		Args(func() {
			Attribute("table", String, "Only views of this table.")
			Attribute("owner", String, "Whose views to list.", func() {
				Enum("me", "anyone")
				Default("anyone")
			})
		})
		Return(func() {
			Attribute("views", ArrayOf("SavedView"), "Saved views, most recently used first.")
			Required("views")
		})
		Tags("silent", "saved views")
		Keywords("bookmarks", "my views")
		Exposure("read_only")
	})

	Tool("openSavedView", "Open a saved view now, restoring its table, filters, sort and column layout in the main grid.", func() {
		Args(func() {
			Attribute("view", String, "Saved view name or id.")
			Required("view")
		})
		Return(func() {
			Attribute("view", String, "Saved view now shown.")
			Attribute("table", String, "Table of the view.")
			Required("view", "table")
		})
		Confirmation(func() {
			Title("Open saved view?")
			PromptTemplate("Open saved view {{ .view }} now, replacing the current view?")
			DeniedResultTemplate(`{"status":"denied","tool":"openSavedView","view":{{ json .view }},"hint":"The user declined; offer it with proposeOpenSavedView instead."}`)
		})
		Tags("gated", "saved views", "navigation", "immediate")
		Keywords("restore", "bookmark")
		Exposure("full")
	})

	Tool("proposeOpenSavedView", "Offer a saved view as a chip; it opens only when the user clicks it.", func() {
		Title("Propose opening a saved view")
		Args(func() {
			Attribute("view", String, "Saved view name or id.")
			Attribute("reason", String, "One short sentence shown on the chip, e.g. 'See the late orders'.")
			Required("view")
		})
		Return(proposal)
		Tags("silent", "saved views", "navigation", "proposal")
		Keywords("suggest", "bookmark")
		Exposure("read_only")
	})

	Tool("deleteSavedView", "Delete a saved view permanently. The table and its data are not affected.", func() {
		Args(func() {
			Attribute("view", String, "Saved view name or id.")
			Required("view")
		})
		Return(func() {
			Attribute("view", String, "Deleted view.")
			Attribute("deleted", Boolean, "Whether a view was deleted.")
			Required("view", "deleted")
		})
		Confirmation(func() {
			Title("Delete saved view?")
			PromptTemplate("The table and its data stay. Delete saved view {{ .view }} permanently?")
			DeniedResultTemplate(`{"status":"denied","tool":"deleteSavedView","view":{{ json .view }}}`)
		})
		Tags("gated", "saved views", "destructive")
		Keywords("remove view")
		Exposure("excluded")
	})
}
