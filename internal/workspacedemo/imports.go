package workspacedemo

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// importFile (design: tables.go) stages the rows of an uploaded CSV file
// into a new or existing table.

// upload is a file the user uploaded: its name and CSV text.
type upload struct {
	name    string
	content string
}

type importFileArgs struct {
	FileID    string `json:"fileId"`
	Table     string `json:"table"`
	Mode      string `json:"mode"`
	HasHeader *bool  `json:"hasHeader"`
	Delimiter string `json:"delimiter"`
}

type importFileResult struct {
	Table      string `json:"table"`
	StagedRows int    `json:"stagedRows"`
	EditID     string `json:"editId"`
}

// uploadList names the uploaded files for error messages.
func (w *Workspace) uploadList() string {
	var ids []string
	for id := range w.uploads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i, id := range ids {
		ids[i] = id + " (" + w.uploads[id].name + ")"
	}
	return strings.Join(ids, ", ")
}

func (w *Workspace) importFile(a importFileArgs) (any, error) {
	up, ok := w.uploads[a.FileID]
	if !ok {
		return nil, fmt.Errorf("no uploaded file %q; the uploaded files are %s", a.FileID, w.uploadList())
	}
	delim := firstNonEmpty(a.Delimiter, ",")
	if utf8.RuneCountInString(delim) != 1 {
		return nil, fmt.Errorf("delimiter %q: give one character, e.g. \",\" or \";\"", a.Delimiter)
	}
	r := csv.NewReader(strings.NewReader(up.content))
	r.Comma, _ = utf8.DecodeRuneInString(delim)
	records, err := r.ReadAll()
	if err != nil || len(records) == 0 {
		return nil, fmt.Errorf("%s does not read as CSV with delimiter %q (%v): check the delimiter", up.name, delim, err)
	}
	header := a.HasHeader == nil || *a.HasHeader
	var names []string
	if header {
		names, records = records[0], records[1:]
	}
	mode := firstNonEmpty(a.Mode, "create")
	imp := &importEdit{file: up.name, mode: mode}
	var name string
	if mode == "create" {
		name = strings.ToLower(strings.TrimSpace(a.Table))
		if !strings.Contains(name, ".") {
			return nil, fmt.Errorf("name the new table with its schema, e.g. sales.%s", name)
		}
		if _, exists := w.tables[name]; exists {
			return nil, fmt.Errorf("table %s already exists: import with mode append or replace", name)
		}
		if names == nil {
			for i := range records[0] {
				names = append(names, "col"+strconv.Itoa(i+1))
			}
		}
		if err := inferTable(imp, names, records); err != nil {
			return nil, fmt.Errorf("%s: %w", up.name, err)
		}
	} else {
		if name, err = w.stagedTable(a.Table); err != nil {
			return nil, err
		}
		tx, err := w.scratch(name)
		if err != nil {
			return nil, err
		}
		if err := w.fileRows(imp, tx.table(name), names, records); err != nil {
			return nil, fmt.Errorf("%s: %w", up.name, err)
		}
	}
	verb := map[string]string{"create": "create", "append": "append", "replace": "replace the rows of"}[mode]
	e := &stagedEdit{table: name, op: "import", imp: imp,
		summary: fmt.Sprintf("%s %s with %d rows from %s", verb, name, len(imp.rows), up.name)}
	tx, err := w.scratch(name)
	if err != nil {
		return nil, err
	}
	if err := tx.apply(e); err != nil {
		return nil, fmt.Errorf("%s: %w", up.name, err)
	}
	w.stage(e)
	return importFileResult{Table: name, StagedRows: len(imp.rows), EditID: e.id}, nil
}

// fileRows maps a file's records onto t's columns: by header name, or by
// position without a header. Columns the file lacks take their default.
func (w *Workspace) fileRows(imp *importEdit, t *table, names []string, records [][]string) error {
	if t == nil {
		return fmt.Errorf("the table does not exist: import with mode create")
	}
	if names == nil {
		if len(records) > 0 && len(records[0]) != len(t.columns) {
			return fmt.Errorf("without a header the file needs one field per column of %s (%d: %s), and it has %d", t.name, len(t.columns), strings.Join(t.columnNames(), ", "), len(records[0]))
		}
		names = t.columnNames()
	}
	cols := make([]column, len(names))
	for i, n := range names {
		c, err := t.mustCol(strings.TrimSpace(n))
		if err != nil {
			return fmt.Errorf("header field %q: %w", n, err)
		}
		cols[i] = t.columns[c]
		imp.names = append(imp.names, cols[i].name)
	}
	var defaults []any
	for _, c := range t.columns {
		if slices.Contains(imp.names, c.name) || c.def == "" {
			continue
		}
		v, err := w.defaultValue(c)
		if err != nil {
			return err
		}
		imp.names = append(imp.names, c.name)
		defaults = append(defaults, v)
	}
	for ln, rec := range records {
		if len(rec) != len(cols) {
			return fmt.Errorf("row %d has %d fields, want %d", ln+1, len(rec), len(cols))
		}
		row := make([]any, len(cols), len(imp.names))
		for i, c := range cols {
			v, err := coerce(c, rec[i], true)
			if err != nil {
				return fmt.Errorf("row %d: %w", ln+1, err)
			}
			row[i] = v
		}
		imp.rows = append(imp.rows, append(row, defaults...))
	}
	return nil
}

// inferTable gives a new table a type per column, the narrowest that
// holds every value (bigint, numeric, boolean, date, timestamptz, text;
// empty fields are nulls), and the primary key id when a column of that
// name holds unique integers.
func inferTable(imp *importEdit, names []string, records [][]string) error {
	for i, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" || slices.ContainsFunc(imp.columns, func(c column) bool { return c.name == n }) {
			return fmt.Errorf("column %d has an empty or repeated name", i+1)
		}
		typ := inferType(records, i)
		k, _ := kindOf(typ)
		imp.columns = append(imp.columns, column{name: n, typ: typ, kind: k, nullable: true})
		imp.names = append(imp.names, n)
	}
	for ln, rec := range records {
		row := make([]any, len(imp.columns))
		for i, c := range imp.columns {
			v, err := coerce(c, rec[i], true)
			if err != nil {
				return fmt.Errorf("row %d: %w", ln+1, err)
			}
			row[i] = v
		}
		imp.rows = append(imp.rows, row)
	}
	if id := slices.IndexFunc(imp.columns, func(c column) bool { return c.name == "id" && c.kind == kindInt }); id >= 0 {
		seen := map[any]bool{}
		unique := true
		for _, r := range imp.rows {
			if r[id] == nil || seen[r[id]] {
				unique = false
				break
			}
			seen[r[id]] = true
		}
		if unique {
			imp.pk = []string{"id"}
			imp.columns[id].nullable = false
		}
	}
	return nil
}

// inferType returns the narrowest type holding every field of column i.
func inferType(records [][]string, i int) string {
	fits := func(ok func(string) bool) bool {
		for _, rec := range records {
			if s := strings.TrimSpace(rec[i]); s != "" && !ok(s) {
				return false
			}
		}
		return true
	}
	switch {
	case fits(func(s string) bool { _, err := strconv.ParseInt(s, 10, 64); return err == nil }):
		return "bigint"
	case fits(func(s string) bool { _, err := strconv.ParseFloat(s, 64); return err == nil }):
		return "numeric"
	case fits(func(s string) bool { _, err := strconv.ParseBool(s); return err == nil }):
		return "boolean"
	case fits(func(s string) bool { return len(s) == 10 && validTime(s) }):
		return "date"
	case fits(validTime):
		return "timestamptz"
	}
	return "text"
}
