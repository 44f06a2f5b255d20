package workspacedemo

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Staged edits and the transactions that apply them. Staging an edit
// applies it to a scratch copy of its table, on top of the edits already
// staged there, so that it is checked as it will be committed;
// commitStagedEdits applies the chosen edits, in staging order, to copies
// of their tables and swaps the copies in only when every edit applied.

// stagedEdit is one edit waiting for commitStagedEdits.
type stagedEdit struct {
	id, table, op string         // op: insert, update, delete, import or schema
	key           map[string]any // primary key of the row (update, delete)
	before, after map[string]any // the row before and after (row edits)
	summary       string
	imp           *importEdit
	schema        *schemaEdit
}

// importEdit is the content of a staged import.
type importEdit struct {
	file    string
	mode    string   // create, append or replace
	columns []column // the new table's columns (create)
	pk      []string // the new table's primary key (create)
	names   []string // the column of each value of rows
	rows    [][]any
}

// schemaEdit is a staged change of structure.
type schemaEdit struct {
	change, column, newName, typ string
	indexColumns                 []string
}

// commitRecord is one commit in the change history.
type commitRecord struct {
	at      time.Time
	message string
	edits   []string
}

// describe names the edit in conflict messages.
func (e *stagedEdit) describe() string {
	switch e.op {
	case "import", "schema":
		return e.summary
	}
	return fmt.Sprintf("%s of %s %s", e.op, e.table, formatKey(e.key))
}

// formatKey renders a key as "id=7".
func formatKey(key map[string]any) string {
	parts := make([]string, 0, len(key))
	for _, k := range slices.Sorted(maps.Keys(key)) {
		parts = append(parts, k+"="+formatValue(key[k]))
	}
	return strings.Join(parts, ",")
}

// txn applies edits to copies of the workspace's tables and foreign keys.
type txn struct {
	w      *Workspace
	tables map[string]*table // the tables touched, copied or created
	fks    []foreignKey
}

// begin starts a transaction on w.
func (w *Workspace) begin() *txn {
	return &txn{w: w, tables: map[string]*table{}, fks: slices.Clone(w.fks)}
}

// table returns the transaction's copy of the named table, or nil.
func (tx *txn) table(name string) *table {
	if t, ok := tx.tables[name]; ok {
		return t
	}
	t, ok := tx.w.tables[name]
	if !ok {
		return nil
	}
	c := t.clone()
	tx.tables[name] = c
	return c
}

// scratch returns a transaction holding the edits already staged on the
// named table, to check new edits against.
func (w *Workspace) scratch(name string) (*txn, error) {
	tx := w.begin()
	for _, e := range w.staged {
		if e.table != name {
			continue
		}
		if err := tx.apply(e); err != nil {
			return nil, fmt.Errorf("staged edit %s (%s) no longer applies: %w; discard it with discardStagedEdits first", e.id, e.describe(), err)
		}
	}
	return tx, nil
}

// apply applies one edit, checking that it still fits the data.
func (tx *txn) apply(e *stagedEdit) error {
	if e.op == "import" && e.imp.mode == "create" {
		return tx.createTable(e)
	}
	t := tx.table(e.table)
	if t == nil {
		return fmt.Errorf("table %s does not exist", e.table)
	}
	switch e.op {
	case "insert":
		row, err := fullRow(t, e.after)
		if err != nil {
			return err
		}
		return insertRow(t, row)
	case "update", "delete":
		i := t.findRow(e.key)
		if i < 0 {
			return fmt.Errorf("%s has no row %s any more", t.name, formatKey(e.key))
		}
		for k, v := range e.before {
			if c := t.col(k); c < 0 || t.rows[i][c] != v {
				return fmt.Errorf("row %s of %s changed after the edit was staged", formatKey(e.key), t.name)
			}
		}
		if e.op == "delete" {
			t.rows = slices.Delete(t.rows, i, i+1)
			return nil
		}
		for k, v := range e.after {
			c := t.col(k)
			if c < 0 {
				return fmt.Errorf("%s has no column %s any more", t.name, k)
			}
			t.rows[i][c] = v
		}
		return nil
	case "import":
		if e.imp.mode == "replace" {
			t.rows = nil
		}
		for _, vals := range e.imp.rows {
			row, err := fullRow(t, zipMap(e.imp.names, vals))
			if err != nil {
				return err
			}
			if err := insertRow(t, row); err != nil {
				return err
			}
		}
		return nil
	case "schema":
		return tx.alter(t, e.schema)
	}
	return fmt.Errorf("unknown edit %q", e.op)
}

// zipMap pairs names with values.
func zipMap(names []string, vals []any) map[string]any {
	m := make(map[string]any, len(names))
	for i, n := range names {
		m[n] = vals[i]
	}
	return m
}

// fullRow builds a row of t from values by column name; a missing column
// is null, which a non-nullable column refuses.
func fullRow(t *table, values map[string]any) ([]any, error) {
	row := make([]any, len(t.columns))
	for k, v := range values {
		c := t.col(k)
		if c < 0 {
			return nil, fmt.Errorf("%s has no column %s any more", t.name, k)
		}
		row[c] = v
	}
	for i, c := range t.columns {
		if row[i] == nil && !c.nullable {
			return nil, fmt.Errorf("column %s of %s is not nullable and has no value", c.name, t.name)
		}
	}
	return row, nil
}

// insertRow appends row to t unless its primary key is taken.
func insertRow(t *table, row []any) error {
	if key := t.keyOf(row); key != nil && t.findRow(key) >= 0 {
		return fmt.Errorf("%s already has a row %s", t.name, formatKey(key))
	}
	t.rows = append(t.rows, row)
	return nil
}

// createTable applies an import that creates its table.
func (tx *txn) createTable(e *stagedEdit) error {
	if tx.table(e.table) != nil {
		return fmt.Errorf("table %s already exists: import with mode append or replace", e.table)
	}
	t := &table{name: e.table, description: "Imported from " + e.imp.file + ".", owner: currentUser,
		columns: slices.Clone(e.imp.columns), pk: slices.Clone(e.imp.pk)}
	if len(t.pk) > 0 {
		_, base, _ := strings.Cut(t.name, ".")
		t.indexes = []*index{{name: base + "_pkey", columns: slices.Clone(t.pk), unique: true}}
	}
	tx.tables[e.table] = t
	for _, vals := range e.imp.rows {
		if err := insertRow(t, slices.Clone(vals)); err != nil {
			return err
		}
	}
	return nil
}

// alter applies a schema change to t.
func (tx *txn) alter(t *table, s *schemaEdit) error {
	var ci int
	if s.change != "addColumn" && s.change != "createIndex" && s.change != "dropIndex" {
		var err error
		if ci, err = t.mustCol(s.column); err != nil {
			return err
		}
	}
	switch s.change {
	case "addColumn":
		if t.col(s.column) >= 0 {
			return fmt.Errorf("%s already has a column %s", t.name, s.column)
		}
		k, ok := kindOf(s.typ)
		if !ok {
			return fmt.Errorf("unknown type %q; the workspace knows %s", s.typ, supportedTypes)
		}
		t.columns = append(t.columns, column{name: s.column, typ: s.typ, kind: k, nullable: true})
		for i := range t.rows {
			t.rows[i] = append(t.rows[i], nil)
		}
	case "renameColumn":
		if t.col(s.newName) >= 0 {
			return fmt.Errorf("%s already has a column %s", t.name, s.newName)
		}
		t.columns[ci].name = s.newName
		rename := func(cols []string) []string {
			out := slices.Clone(cols)
			for i, c := range out {
				if c == s.column {
					out[i] = s.newName
				}
			}
			return out
		}
		t.pk = rename(t.pk)
		for _, ix := range t.indexes {
			ix.columns = rename(ix.columns)
		}
		for i, fk := range tx.fks {
			if fk.table == t.name {
				tx.fks[i].columns = rename(fk.columns)
			}
			if fk.refTable == t.name {
				tx.fks[i].refColumns = rename(fk.refColumns)
			}
		}
	case "dropColumn":
		if slices.Contains(t.pk, s.column) {
			return fmt.Errorf("column %s is in the primary key of %s and cannot be dropped", s.column, t.name)
		}
		for _, fk := range tx.fks {
			if (fk.table == t.name && slices.Contains(fk.columns, s.column)) || (fk.refTable == t.name && slices.Contains(fk.refColumns, s.column)) {
				return fmt.Errorf("column %s of %s is joined by foreign key %s and cannot be dropped", s.column, t.name, fk.name)
			}
		}
		t.columns = slices.Delete(t.columns, ci, ci+1)
		for i := range t.rows {
			t.rows[i] = slices.Delete(t.rows[i], ci, ci+1)
		}
		t.indexes = slices.DeleteFunc(t.indexes, func(ix *index) bool { return slices.Contains(ix.columns, s.column) })
	case "alterType":
		k, ok := kindOf(s.typ)
		if !ok {
			return fmt.Errorf("unknown type %q; the workspace knows %s", s.typ, supportedTypes)
		}
		to := t.columns[ci]
		to.typ, to.kind = s.typ, k
		for i, r := range t.rows {
			if r[ci] == nil {
				continue
			}
			v, err := coerce(to, formatValue(r[ci]), true)
			if err != nil {
				return fmt.Errorf("row %d of %s: %v cannot become %s", i+1, t.name, formatValue(r[ci]), s.typ)
			}
			t.rows[i][ci] = v
		}
		t.columns[ci] = to
	case "createIndex":
		for _, c := range s.indexColumns {
			if _, err := t.mustCol(c); err != nil {
				return err
			}
		}
		_, base, _ := strings.Cut(t.name, ".")
		name := base + "_" + strings.Join(s.indexColumns, "_") + "_idx"
		for n := 2; slices.ContainsFunc(t.indexes, func(ix *index) bool { return ix.name == name }); n++ {
			name = fmt.Sprintf("%s_%s_idx%d", base, strings.Join(s.indexColumns, "_"), n)
		}
		t.indexes = append(t.indexes, &index{name: name, columns: slices.Clone(s.indexColumns)})
	case "dropIndex":
		var found []int
		for i, ix := range t.indexes {
			if ix.name == s.column || (s.column == "" && slices.Equal(ix.columns, s.indexColumns)) {
				found = append(found, i)
			}
		}
		if len(found) != 1 {
			what := "no such index"
			if len(found) > 1 {
				what = "several indexes on those columns"
			}
			return fmt.Errorf("%s has %s: name the index with column (getIndexStats lists them)", t.name, what)
		}
		i := found[0]
		if strings.HasSuffix(t.indexes[i].name, "_pkey") {
			return fmt.Errorf("%s is the primary key's index and cannot be dropped", t.indexes[i].name)
		}
		t.indexes = slices.Delete(t.indexes, i, i+1)
	default:
		return fmt.Errorf("unknown change %q", s.change)
	}
	return nil
}
