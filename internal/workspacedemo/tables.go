package workspacedemo

import (
	"fmt"
	"slices"
	"strings"
)

// The table tools (design: tables.go): listing, opening, describing,
// previewing and counting tables. importFile is in imports.go,
// searchWorkspace in search.go.

type listTablesArgs struct {
	Schema       string `json:"schema"`
	NameContains string `json:"nameContains"`
	Limit        *int   `json:"limit"`
}

type tableSummary struct {
	Name       string `json:"name"`
	Rows       int64  `json:"rows"`
	Owner      string `json:"owner,omitempty"`
	ModifiedAt string `json:"modifiedAt,omitempty"`
}

type listTablesResult struct {
	Tables []tableSummary `json:"tables"`
	bounds
}

func (w *Workspace) listTables(a listTablesArgs) (any, error) {
	limit := 100
	if a.Limit != nil {
		limit = *a.Limit
	}
	schema := strings.ToLower(strings.TrimSpace(a.Schema))
	if schema != "" {
		var schemas []string
		for _, n := range w.tableNames() {
			if s, _, _ := strings.Cut(n, "."); !slices.Contains(schemas, s) {
				schemas = append(schemas, s)
			}
		}
		if !slices.Contains(schemas, schema) {
			return nil, fmt.Errorf("no schema %q; the schemas are %s", a.Schema, strings.Join(schemas, ", "))
		}
	}
	var all []tableSummary
	for _, n := range w.tableNames() {
		t := w.tables[n]
		if schema != "" && t.schema() != schema {
			continue
		}
		if a.NameContains != "" && !strings.Contains(n, strings.ToLower(a.NameContains)) {
			continue
		}
		all = append(all, tableSummary{Name: n, Rows: int64(len(t.rows)), Owner: t.owner, ModifiedAt: stamp(t.modifiedAt)})
	}
	shown := all[:min(limit, len(all))]
	return listTablesResult{
		Tables: append([]tableSummary{}, shown...),
		bounds: boundsOf(len(shown), len(all), "List one schema with schema, narrow with nameContains, or raise limit (at most 500)."),
	}, nil
}

type openTableArgs struct {
	Table       string `json:"table"`
	FocusColumn string `json:"focusColumn"`
	RowKey      string `json:"rowKey"`
}

type openTableResult struct {
	Table  string `json:"table"`
	ViewID string `json:"viewId"`
}

func (w *Workspace) openTable(a openTableArgs) (any, error) {
	t, err := w.table(a.Table)
	if err != nil {
		return nil, err
	}
	if a.FocusColumn != "" {
		if _, err := t.mustCol(a.FocusColumn); err != nil {
			return nil, err
		}
	}
	if a.RowKey != "" {
		if len(t.pk) != 1 {
			return nil, fmt.Errorf("rowKey selects a row by a one-column primary key, and %s has %d key columns", t.name, len(t.pk))
		}
		pk := t.col(t.pk[0])
		if !slices.ContainsFunc(t.rows, func(r []any) bool { return formatValue(r[pk]) == a.RowKey }) {
			return nil, fmt.Errorf("table %s has no row with %s = %s", t.name, t.pk[0], a.RowKey)
		}
	}
	w.grid = &gridView{id: w.nextID("grid"), table: t.name}
	return openTableResult{Table: t.name, ViewID: w.grid.id}, nil
}

type proposeOpenTableArgs struct {
	Table  string `json:"table"`
	Reason string `json:"reason"`
}

func (w *Workspace) proposeOpenTable(a proposeOpenTableArgs) (any, error) {
	t, err := w.table(a.Table)
	if err != nil {
		return nil, err
	}
	return w.propose(firstNonEmpty(a.Reason, "Open "+t.name)), nil
}

type describeTableArgs struct {
	Table           string `json:"table"`
	IncludeComments bool   `json:"includeComments"`
}

type columnInfo struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
	Default  string `json:"default,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

type describeTableResult struct {
	Table      string       `json:"table"`
	Columns    []columnInfo `json:"columns"`
	PrimaryKey []string     `json:"primaryKey,omitempty"`
}

func (w *Workspace) describeTable(a describeTableArgs) (any, error) {
	t, err := w.table(a.Table)
	if err != nil {
		return nil, err
	}
	res := describeTableResult{Table: t.name, Columns: []columnInfo{}, PrimaryKey: slices.Clone(t.pk)}
	for _, c := range t.columns {
		ci := columnInfo{Name: c.name, Type: c.typ, Nullable: c.nullable, Default: c.def}
		if a.IncludeComments {
			ci.Comment = c.comment
		}
		res.Columns = append(res.Columns, ci)
	}
	return res, nil
}

type previewRowsArgs struct {
	Table   string   `json:"table"`
	Filter  string   `json:"filter"`
	OrderBy []string `json:"orderBy"`
	Limit   *int     `json:"limit"`
}

type rowsResult struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

type previewRowsResult struct {
	rowsResult
	bounds
}

func (w *Workspace) previewRows(a previewRowsArgs) (any, error) {
	t, err := w.table(a.Table)
	if err != nil {
		return nil, err
	}
	f, err := parseFilter(t, a.Filter)
	if err != nil {
		return nil, err
	}
	keys, err := parseOrderBy(t, a.OrderBy)
	if err != nil {
		return nil, err
	}
	limit := 20
	if a.Limit != nil {
		limit = *a.Limit
	}
	matched := scan(t, f)
	byKey := len(keys) == 0 && len(t.pk) == 1
	if byKey {
		keys = []orderKey{{name: t.pk[0], pos: t.col(t.pk[0])}}
	}
	sortRows(matched, keys)
	shown := matched[:min(limit, len(matched))]
	rows := make([][]any, len(shown))
	for i, r := range shown {
		rows[i] = slices.Clone(r)
	}
	hint := fmt.Sprintf("Showing %d of %d matching rows: narrow the filter or raise limit (at most 200); countRows counts rows without fetching them.", len(shown), len(matched))
	if byKey && len(shown) > 0 {
		next := predicate{name: t.pk[0], op: "gt", vals: []any{shown[len(shown)-1][keys[0].pos]}}.String()
		if strings.TrimSpace(a.Filter) != "" {
			next = a.Filter + " and " + next
		}
		hint = fmt.Sprintf("Showing %d of %d matching rows, in %s order. For the next rows call previewRows again with filter %q; or narrow the filter.", len(shown), len(matched), t.pk[0], next)
	}
	return previewRowsResult{
		rowsResult: rowsResult{Columns: t.columnNames(), Rows: rows},
		bounds:     boundsOf(len(shown), len(matched), hint),
	}, nil
}

// parseOrderBy parses sort keys such as "created_at desc" on t.
func parseOrderBy(t *table, specs []string) ([]orderKey, error) {
	var keys []orderKey
	for _, s := range specs {
		fields := strings.Fields(s)
		if len(fields) == 0 || len(fields) > 2 {
			return nil, fmt.Errorf("sort key %q: write a column optionally followed by asc or desc, e.g. 'created_at desc'", s)
		}
		c, err := t.mustCol(fields[0])
		if err != nil {
			return nil, err
		}
		k := orderKey{name: fields[0], pos: c}
		if len(fields) == 2 {
			switch strings.ToLower(fields[1]) {
			case "asc":
			case "desc":
				k.desc = true
			default:
				return nil, fmt.Errorf("sort key %q: the direction is asc or desc", s)
			}
		}
		keys = append(keys, k)
	}
	return keys, nil
}

type countRowsArgs struct {
	Table   string `json:"table"`
	Filter  string `json:"filter"`
	GroupBy string `json:"groupBy"`
}

type countRowsResult struct {
	Count  int64            `json:"count"`
	Groups map[string]int64 `json:"groups,omitempty"`
}

func (w *Workspace) countRows(a countRowsArgs) (any, error) {
	t, err := w.table(a.Table)
	if err != nil {
		return nil, err
	}
	f, err := parseFilter(t, a.Filter)
	if err != nil {
		return nil, err
	}
	group := -1
	if a.GroupBy != "" {
		if group, err = t.mustCol(a.GroupBy); err != nil {
			return nil, err
		}
	}
	matched := scan(t, f)
	res := countRowsResult{Count: int64(len(matched))}
	if group >= 0 {
		res.Groups = map[string]int64{}
		for _, r := range matched {
			res.Groups[formatValue(r[group])]++
		}
	}
	return res, nil
}
