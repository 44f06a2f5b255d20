package workspacedemo

import "slices"

// Reading rows: scanning a table through a filter (and counting the use
// of the index a plan picks), sorting, aggregating.

// sortRows sorts rows stably by keys (positions in the rows), nulls last.
func sortRows(rows [][]any, keys []orderKey) {
	if len(keys) == 0 {
		return
	}
	slices.SortStableFunc(rows, func(a, b []any) int {
		for _, k := range keys {
			c := compareNullsLast(a[k.pos], b[k.pos])
			if k.desc && a[k.pos] != nil && b[k.pos] != nil {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
}

// aggregate computes one aggregate over rows; sums and averages of no
// value are null.
func aggregate(t *table, it selectItem, rows [][]any) any {
	if it.col < 0 {
		return int64(len(rows))
	}
	var vals []any
	for _, r := range rows {
		if r[it.col] != nil {
			vals = append(vals, r[it.col])
		}
	}
	switch it.agg {
	case "count":
		return int64(len(vals))
	case "min", "max":
		if len(vals) == 0 {
			return nil
		}
		best := vals[0]
		for _, v := range vals[1:] {
			if c := compareValues(v, best); (it.agg == "min") == (c < 0) && c != 0 {
				best = v
			}
		}
		return best
	}
	if len(vals) == 0 {
		return nil
	}
	var sum float64
	for _, v := range vals {
		f, _ := toFloat(v)
		sum += f
	}
	if it.agg == "avg" {
		return round(sum/float64(len(vals)), 4)
	}
	if t.columns[it.col].kind == kindInt {
		return int64(sum)
	}
	return round(sum, 2)
}

// scan returns t's rows that match f (the rows themselves: callers copy
// before changing them) and counts a scan of the index the plan uses.
func scan(t *table, f filter) [][]any {
	if ix, _ := chooseIndex(t, f); ix != nil {
		ix.scans++
	}
	var out [][]any
	for _, r := range t.rows {
		if f.match(r) {
			out = append(out, r)
		}
	}
	return out
}

// chooseIndex returns the index a plan uses for f, with the predicate it
// serves: the first index led by a column tested for equality (or IN),
// otherwise the first led by a column tested for a range.
func chooseIndex(t *table, f filter) (*index, *predicate) {
	for _, ops := range [][]string{{"eq", "in"}, {"lt", "lte", "gt", "gte"}} {
		for _, ix := range t.indexes {
			for i := range f {
				if slices.Contains(ops, f[i].op) && ix.columns[0] == f[i].name {
					return ix, &f[i]
				}
			}
		}
	}
	return nil, nil
}
