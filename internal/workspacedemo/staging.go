package workspacedemo

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The staged-edit tools (design: staging.go). The mechanics of staging
// and committing are in edits.go, imports in imports.go.

// rowEdit is the RowEdit shape of the records design.
type rowEdit struct {
	Op     string         `json:"op"`
	Key    map[string]any `json:"key"`
	Values map[string]any `json:"values"`
}

type stageRowEditsArgs struct {
	Table string    `json:"table"`
	Edits []rowEdit `json:"edits"`
}

// stagedEditOut is the StagedEdit shape of the records design.
type stagedEditOut struct {
	EditID  string         `json:"editId"`
	Table   string         `json:"table"`
	Op      string         `json:"op"`
	Before  map[string]any `json:"before,omitempty"`
	After   map[string]any `json:"after,omitempty"`
	Summary string         `json:"summary,omitempty"`
}

func (e *stagedEdit) out() stagedEditOut {
	return stagedEditOut{EditID: e.id, Table: e.table, Op: e.op, Before: maps.Clone(e.before), After: maps.Clone(e.after), Summary: e.summary}
}

type stagedEditsResult struct {
	Edits []stagedEditOut `json:"edits"`
}

// stagedTable resolves the table an edit names: an existing table, or
// one a staged import creates.
func (w *Workspace) stagedTable(ref string) (string, error) {
	t, err := w.table(ref)
	if err == nil {
		return t.name, nil
	}
	name := strings.ToLower(strings.TrimSpace(ref))
	if slices.ContainsFunc(w.staged, func(e *stagedEdit) bool { return e.table == name }) {
		return name, nil
	}
	return "", err
}

// stage gives edits their ids and adds them to the staged list.
func (w *Workspace) stage(edits ...*stagedEdit) {
	for _, e := range edits {
		e.id = w.nextID("edit")
		w.staged = append(w.staged, e)
	}
}

func (w *Workspace) stageRowEdits(a stageRowEditsArgs) (any, error) {
	name, err := w.stagedTable(a.Table)
	if err != nil {
		return nil, err
	}
	if len(a.Edits) == 0 {
		return nil, errors.New("give at least one edit")
	}
	tx, err := w.scratch(name)
	if err != nil {
		return nil, err
	}
	t := tx.table(name)
	var edits []*stagedEdit
	for i, re := range a.Edits {
		e, err := w.rowEdit(t, re)
		if err == nil {
			err = tx.apply(e)
		}
		if err != nil {
			return nil, fmt.Errorf("edit %d (%s): %w; nothing was staged", i, re.Op, err)
		}
		edits = append(edits, e)
	}
	w.stage(edits...)
	res := stagedEditsResult{Edits: []stagedEditOut{}}
	for _, e := range edits {
		res.Edits = append(res.Edits, e.out())
	}
	return res, nil
}

// rowEdit turns a requested row edit into a staged edit against t, the
// table as the edits staged before it leave it.
func (w *Workspace) rowEdit(t *table, re rowEdit) (*stagedEdit, error) {
	e := &stagedEdit{table: t.name, op: re.Op}
	values := map[string]any{}
	for k, v := range re.Values {
		c, err := t.mustCol(k)
		if err != nil {
			return nil, err
		}
		if values[k], err = coerce(t.columns[c], v, false); err != nil {
			return nil, err
		}
	}
	if re.Op == "insert" {
		if len(re.Key) > 0 {
			return nil, errors.New("an insert takes values only: put the key columns in values")
		}
		return e, w.insertValues(t, e, values)
	}
	key, err := t.coerceKey(re.Key)
	if err != nil {
		return nil, err
	}
	i := t.findRow(key)
	if i < 0 {
		return nil, fmt.Errorf("%s has no row %s", t.name, formatKey(key))
	}
	e.key, e.before = key, t.rowMap(t.rows[i])
	switch re.Op {
	case "delete":
		if len(re.Values) > 0 {
			return nil, errors.New("a delete takes the key only: omit values")
		}
	case "update":
		if len(values) == 0 {
			return nil, errors.New("an update needs values: the columns to change")
		}
		for k := range values {
			if slices.Contains(t.pk, k) {
				return nil, fmt.Errorf("primary-key column %s cannot be updated: delete the row and insert it again", k)
			}
		}
		e.after = maps.Clone(e.before)
		maps.Copy(e.after, values)
	default:
		return nil, fmt.Errorf("unknown op %q: use insert, update or delete", re.Op)
	}
	return e, nil
}

// insertValues completes the values of an inserted row: the next key for
// a one-column integer key, defaults, nulls.
func (w *Workspace) insertValues(t *table, e *stagedEdit, values map[string]any) error {
	if len(values) == 0 {
		return errors.New("an insert needs values")
	}
	e.after = values
	for _, c := range t.columns {
		if _, ok := values[c.name]; ok {
			continue
		}
		switch {
		case len(t.pk) == 1 && t.pk[0] == c.name && c.kind == kindInt:
			next := int64(1)
			for _, r := range t.rows {
				if v, ok := r[t.col(c.name)].(int64); ok && v >= next {
					next = v + 1
				}
			}
			values[c.name] = next
		case c.def != "":
			v, err := w.defaultValue(c)
			if err != nil {
				return err
			}
			values[c.name] = v
		case c.nullable:
			values[c.name] = nil
		default:
			return fmt.Errorf("column %s is not nullable and has no default: give it a value", c.name)
		}
	}
	return nil
}

// defaultValue evaluates a column default: now(), a quoted text, a
// number or a boolean.
func (w *Workspace) defaultValue(c column) (any, error) {
	switch d := c.def; {
	case d == "now()":
		return stamp(w.clock), nil
	case strings.HasPrefix(d, "'") && strings.HasSuffix(d, "'") && len(d) >= 2:
		return coerce(c, d[1:len(d)-1], true)
	default:
		return coerce(c, d, true)
	}
}

type stageSchemaChangeArgs struct {
	Table        string   `json:"table"`
	Change       string   `json:"change"`
	Column       string   `json:"column"`
	NewName      string   `json:"newName"`
	Type         string   `json:"type"`
	IndexColumns []string `json:"indexColumns"`
}

type stageSchemaChangeResult struct {
	Edit stagedEditOut `json:"edit"`
}

func (w *Workspace) stageSchemaChange(a stageSchemaChangeArgs) (any, error) {
	name, err := w.stagedTable(a.Table)
	if err != nil {
		return nil, err
	}
	need := map[string][]string{
		"addColumn": {"column", "type"}, "renameColumn": {"column", "newName"}, "dropColumn": {"column"},
		"alterType": {"column", "type"}, "createIndex": {"indexColumns"},
	}[a.Change]
	given := map[string]bool{"column": a.Column != "", "newName": a.NewName != "", "type": a.Type != "", "indexColumns": len(a.IndexColumns) > 0}
	for _, f := range need {
		if !given[f] {
			return nil, fmt.Errorf("%s needs %s", a.Change, strings.Join(need, " and "))
		}
	}
	if a.Change == "dropIndex" && !given["column"] && !given["indexColumns"] {
		return nil, errors.New("dropIndex needs the index: its name as column, or its indexColumns")
	}
	s := &schemaEdit{change: a.Change, column: a.Column, newName: a.NewName, typ: a.Type, indexColumns: slices.Clone(a.IndexColumns)}
	e := &stagedEdit{table: name, op: "schema", schema: s, summary: s.summary(name)}
	tx, err := w.scratch(name)
	if err != nil {
		return nil, err
	}
	if err := tx.apply(e); err != nil {
		return nil, err
	}
	w.stage(e)
	return stageSchemaChangeResult{Edit: e.out()}, nil
}

// summary describes a schema change in one line.
func (s *schemaEdit) summary(table string) string {
	switch s.change {
	case "addColumn":
		return fmt.Sprintf("add column %s %s to %s", s.column, s.typ, table)
	case "renameColumn":
		return fmt.Sprintf("rename column %s of %s to %s", s.column, table, s.newName)
	case "dropColumn":
		return fmt.Sprintf("drop column %s of %s", s.column, table)
	case "alterType":
		return fmt.Sprintf("change the type of %s.%s to %s", table, s.column, s.typ)
	case "createIndex":
		return fmt.Sprintf("create an index on %s (%s)", table, strings.Join(s.indexColumns, ", "))
	}
	return fmt.Sprintf("drop index %s of %s", firstNonEmpty(s.column, "on ("+strings.Join(s.indexColumns, ", ")+")"), table)
}

type tableArgs struct {
	Table   string `json:"table"`
	Message string `json:"message"`
}

// selectStaged returns the staged edits of the named table (all when
// ref is empty).
func (w *Workspace) selectStaged(ref string) ([]*stagedEdit, error) {
	if ref == "" {
		return slices.Clone(w.staged), nil
	}
	name, err := w.stagedTable(ref)
	if err != nil {
		return nil, err
	}
	var out []*stagedEdit
	for _, e := range w.staged {
		if e.table == name {
			out = append(out, e)
		}
	}
	return out, nil
}

func (w *Workspace) listStagedEdits(a tableArgs) (any, error) {
	edits, err := w.selectStaged(a.Table)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(edits, func(a, b *stagedEdit) int { return strings.Compare(a.table, b.table) })
	res := stagedEditsResult{Edits: []stagedEditOut{}}
	for _, e := range edits {
		res.Edits = append(res.Edits, e.out())
	}
	return res, nil
}

type commitResult struct {
	Committed int      `json:"committed"`
	Tables    []string `json:"tables"`
}

func (w *Workspace) commitStagedEdits(a tableArgs) (any, error) {
	edits, err := w.selectStaged(a.Table)
	if err != nil {
		return nil, err
	}
	tx := w.begin()
	for _, e := range edits {
		if err := tx.apply(e); err != nil {
			return nil, fmt.Errorf("nothing was written: staged edit %s (%s) conflicts: %w. Discard it with discardStagedEdits and stage it again", e.id, e.describe(), err)
		}
	}
	res := commitResult{Committed: len(edits), Tables: slices.Sorted(maps.Keys(tx.tables))}
	if res.Tables == nil {
		res.Tables = []string{}
	}
	now := w.tick()
	for name, t := range tx.tables {
		t.modifiedAt = now
		w.tables[name] = t
	}
	w.fks = tx.fks
	w.staged = slices.DeleteFunc(w.staged, func(e *stagedEdit) bool { return slices.Contains(edits, e) })
	if len(edits) > 0 {
		ids := make([]string, len(edits))
		for i, e := range edits {
			ids[i] = e.id
		}
		w.history = append(w.history, commitRecord{at: now, message: a.Message, edits: ids})
	}
	return res, nil
}

type discardArgs struct {
	Table   string   `json:"table"`
	EditIDs []string `json:"editIds"`
}

type discardResult struct {
	Discarded int `json:"discarded"`
}

func (w *Workspace) discardStagedEdits(a discardArgs) (any, error) {
	edits, err := w.selectStaged(a.Table)
	if err != nil {
		return nil, err
	}
	for _, id := range a.EditIDs {
		if !slices.ContainsFunc(w.staged, func(e *stagedEdit) bool { return e.id == id }) {
			return nil, fmt.Errorf("no staged edit %q: listStagedEdits lists them; nothing was discarded", id)
		}
	}
	drop := func(e *stagedEdit) bool {
		return slices.Contains(edits, e) && (len(a.EditIDs) == 0 || slices.Contains(a.EditIDs, e.id))
	}
	before := len(w.staged)
	w.staged = slices.DeleteFunc(w.staged, drop)
	return discardResult{Discarded: before - len(w.staged)}, nil
}
