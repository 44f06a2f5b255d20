package workspacedemo

// bounds are the canonical bounds fields a bounded tool writes in its
// result object (tools.BoundsFieldReturned, BoundsFieldTruncated,
// BoundsFieldTotal and BoundsFieldRefinementHint): a registry carries the
// result only, and the consuming runtime reads the bounds from these
// fields. The records design declares its bounded tools (listTables,
// previewRows, runQuery, findColumns) without a Cursor, so no result
// carries a next_cursor: previewRows's refinement hint gives the filter
// of the next page instead (keyset paging on the primary key).
type bounds struct {
	Returned       int    `json:"returned"`
	Truncated      bool   `json:"truncated"`
	Total          int    `json:"total"`
	RefinementHint string `json:"refinement_hint,omitempty"`
}

// boundsOf reports returned items of total, with hint when some were
// left out.
func boundsOf(returned, total int, hint string) bounds {
	b := bounds{Returned: returned, Total: total, Truncated: returned < total}
	if b.Truncated {
		b.RefinementHint = hint
	}
	return b
}
