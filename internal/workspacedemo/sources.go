package workspacedemo

import (
	"fmt"
	"slices"
	"strings"
)

// dataset is the data of an export or chart source: a table, a saved
// view (its table's rows through its filters and sort) or a SELECT.
type dataset struct {
	columns []string
	kinds   []kind
	rows    [][]any
}

// col returns the position of the named column, or an error naming the
// dataset's columns.
func (d dataset) col(name string) (int, error) {
	if i := slices.Index(d.columns, name); i >= 0 {
		return i, nil
	}
	return -1, fmt.Errorf("the source has no column %q; its columns are %s", name, strings.Join(d.columns, ", "))
}

// isSelect reports whether s reads as a SQL statement rather than a name.
func isSelect(s string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return strings.EqualFold(first, "select")
}

// source resolves ref, a table, a saved view (name or id) or a SELECT.
func (w *Workspace) source(ref string) (dataset, error) {
	if isSelect(ref) {
		return w.queryDataset(ref)
	}
	v, err := w.lookupView(ref)
	if err != nil {
		return dataset{}, err
	}
	if v != nil {
		return w.viewDataset(v)
	}
	t, err := w.table(ref)
	if err != nil {
		return dataset{}, fmt.Errorf("source %q is not a table, a saved view or a SELECT: listTables and listSavedViews name them", ref)
	}
	return tableDataset(t, t.rows), nil
}

// tableDataset copies rows of t into a dataset.
func tableDataset(t *table, rows [][]any) dataset {
	d := dataset{columns: t.columnNames(), rows: make([][]any, len(rows))}
	for _, c := range t.columns {
		d.kinds = append(d.kinds, c.kind)
	}
	for i, r := range rows {
		d.rows[i] = slices.Clone(r)
	}
	return d
}

// viewDataset returns the rows of v's table through its filters and sort.
func (w *Workspace) viewDataset(v *savedView) (dataset, error) {
	t, err := w.table(v.table)
	if err != nil {
		return dataset{}, fmt.Errorf("saved view %s: %w", v.id, err)
	}
	f, err := conditionsFilter(t, v.conds)
	if err != nil {
		return dataset{}, fmt.Errorf("saved view %s no longer applies to %s: %w", v.id, t.name, err)
	}
	rows := scan(t, f)
	sortRows(rows, orderKeys(t, v.sort))
	return tableDataset(t, rows), nil
}

// queryDataset runs a SELECT into a dataset.
func (w *Workspace) queryDataset(sql string) (dataset, error) {
	s, err := w.parseSelect(sql)
	if err != nil {
		return dataset{}, err
	}
	cols, rows := s.run()
	return dataset{columns: cols, kinds: s.kinds(), rows: rows}, nil
}

// kinds returns the kinds of the statement's output columns.
func (s *selectStmt) kinds() []kind {
	if s.star {
		out := make([]kind, len(s.table.columns))
		for i, c := range s.table.columns {
			out[i] = c.kind
		}
		return out
	}
	out := make([]kind, len(s.items))
	for i, it := range s.items {
		switch it.agg {
		case "count":
			out[i] = kindInt
		case "avg":
			out[i] = kindNumeric
		default:
			out[i] = s.table.columns[it.col].kind
		}
	}
	return out
}
