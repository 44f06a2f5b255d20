package workspacedemo

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// kind is how a column's values are held in memory: int64, float64,
// string (text and times, ISO 8601) or bool; nil is SQL null.
type kind int

const (
	kindInt kind = iota
	kindNumeric
	kindText
	kindTime
	kindBool
)

// numeric reports whether k holds numbers.
func (k kind) numeric() bool { return k == kindInt || k == kindNumeric }

// column is one column of a table.
type column struct {
	name     string
	typ      string // the SQL type shown, e.g. numeric(10,2)
	kind     kind
	nullable bool
	def      string // default expression, or ""
	comment  string
}

// index is one index of a table, with its usage statistics.
type index struct {
	name    string
	columns []string
	unique  bool
	scans   int64
}

// table is one table: columns, primary key, rows (one value per column,
// in column order) and indexes.
type table struct {
	name        string // schema-qualified
	description string
	owner       string
	modifiedAt  time.Time
	columns     []column
	pk          []string
	rows        [][]any
	indexes     []*index
}

// foreignKey is a foreign-key relation from table(columns) to
// refTable(refColumns).
type foreignKey struct {
	name       string
	table      string
	columns    []string
	refTable   string
	refColumns []string
}

// clone returns a deep copy of t (values are immutable scalars).
func (t *table) clone() *table {
	c := *t
	c.columns = slices.Clone(t.columns)
	c.pk = slices.Clone(t.pk)
	c.rows = make([][]any, len(t.rows))
	for i, r := range t.rows {
		c.rows[i] = slices.Clone(r)
	}
	c.indexes = make([]*index, len(t.indexes))
	for i, ix := range t.indexes {
		cp := *ix
		cp.columns = slices.Clone(ix.columns)
		c.indexes[i] = &cp
	}
	return &c
}

// schema returns the schema part of the table's name.
func (t *table) schema() string {
	s, _, _ := strings.Cut(t.name, ".")
	return s
}

// col returns the position of the named column, or -1.
func (t *table) col(name string) int {
	for i, c := range t.columns {
		if c.name == name {
			return i
		}
	}
	return -1
}

// columnNames returns the names of t's columns, in order.
func (t *table) columnNames() []string {
	out := make([]string, len(t.columns))
	for i, c := range t.columns {
		out[i] = c.name
	}
	return out
}

// mustCol returns the position of the named column or an error naming
// the table's columns.
func (t *table) mustCol(name string) (int, error) {
	if i := t.col(name); i >= 0 {
		return i, nil
	}
	return -1, fmt.Errorf("table %s has no column %q; its columns are %s", t.name, name, strings.Join(t.columnNames(), ", "))
}

// rowMap returns a row as a map from column name to value.
func (t *table) rowMap(row []any) map[string]any {
	m := make(map[string]any, len(t.columns))
	for i, c := range t.columns {
		m[c.name] = row[i]
	}
	return m
}

// keyOf returns the primary-key values of row, or nil without a key.
func (t *table) keyOf(row []any) map[string]any {
	if len(t.pk) == 0 {
		return nil
	}
	m := make(map[string]any, len(t.pk))
	for _, k := range t.pk {
		m[k] = row[t.col(k)]
	}
	return m
}

// findRow returns the position of the row whose primary key equals key
// (values already coerced), or -1.
func (t *table) findRow(key map[string]any) int {
	for i, r := range t.rows {
		match := true
		for k, v := range key {
			if r[t.col(k)] != v {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// coerceKey checks that key names exactly t's primary-key columns and
// coerces its values.
func (t *table) coerceKey(key map[string]any) (map[string]any, error) {
	if len(t.pk) == 0 {
		return nil, fmt.Errorf("table %s has no primary key, so its rows cannot be addressed one by one", t.name)
	}
	if len(key) != len(t.pk) {
		return nil, fmt.Errorf("give the primary key of %s as the key: %s", t.name, strings.Join(t.pk, ", "))
	}
	out := make(map[string]any, len(key))
	for _, k := range t.pk {
		v, ok := key[k]
		if !ok {
			return nil, fmt.Errorf("the key of %s is %s: %q is missing", t.name, strings.Join(t.pk, ", "), k)
		}
		cv, err := coerce(t.columns[t.col(k)], v, false)
		if err != nil {
			return nil, err
		}
		out[k] = cv
	}
	return out, nil
}

// kindOf returns the kind of a SQL type name, or false for a type the
// workspace does not know.
func kindOf(typ string) (kind, bool) {
	t := strings.ToLower(strings.TrimSpace(typ))
	base, _, _ := strings.Cut(t, "(")
	switch strings.TrimSpace(base) {
	case "smallint", "integer", "int", "bigint", "int2", "int4", "int8", "serial", "bigserial":
		return kindInt, true
	case "numeric", "decimal", "real", "double precision", "float", "float4", "float8":
		return kindNumeric, true
	case "text", "varchar", "character varying", "char", "uuid", "citext":
		return kindText, true
	case "timestamp", "timestamptz", "timestamp with time zone", "date":
		return kindTime, true
	case "boolean", "bool":
		return kindBool, true
	}
	return 0, false
}

// supportedTypes is the list kindOf accepts, for error messages.
const supportedTypes = "bigint, integer, numeric(p,s), double precision, text, varchar(n), timestamptz, date, boolean"

// coerce converts v (decoded JSON: json.Number, float64, string, bool,
// nil; or text from a file when fromText) to a value of column c.
func coerce(c column, v any, fromText bool) (any, error) {
	if s, ok := v.(string); ok && fromText && s == "" {
		v = nil
	}
	if v == nil {
		if !c.nullable {
			return nil, fmt.Errorf("column %s is not nullable: give it a value", c.name)
		}
		return nil, nil
	}
	bad := func(want string) error {
		return fmt.Errorf("column %s is %s: give %s, not %s", c.name, c.typ, want, describeValue(v))
	}
	switch c.kind {
	case kindInt:
		switch x := v.(type) {
		case json.Number:
			if n, err := x.Int64(); err == nil {
				return n, nil
			}
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x), nil
			}
		case int64:
			return x, nil
		case string:
			if fromText {
				if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
					return n, nil
				}
			}
		}
		return nil, bad("an integer")
	case kindNumeric:
		switch x := v.(type) {
		case json.Number:
			if f, err := x.Float64(); err == nil {
				return f, nil
			}
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		case string:
			if fromText {
				if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
					return f, nil
				}
			}
		}
		return nil, bad("a number")
	case kindText:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return nil, bad("a string")
	case kindTime:
		if s, ok := v.(string); ok && validTime(s) {
			return s, nil
		}
		return nil, bad("an ISO 8601 date or time such as 2025-03-01 or 2025-03-01T09:30:00Z")
	case kindBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if fromText {
				if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
					return b, nil
				}
			}
		}
		return nil, bad("true or false")
	}
	return nil, bad("a value")
}

// validTime reports whether s is an RFC 3339 time or a date.
func validTime(s string) bool {
	if _, err := time.Parse(time.RFC3339, s); err == nil {
		return true
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// describeValue names v's JSON type for error messages.
func describeValue(v any) string {
	switch x := v.(type) {
	case json.Number, float64, int64:
		return fmt.Sprintf("the number %v", x)
	case string:
		return strconv.Quote(x)
	case bool:
		return fmt.Sprintf("%t", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

// formatValue renders a value as text: group keys, plans, hints.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// toFloat returns a number value as float64.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// compareValues orders two non-null values of one kind: numbers
// numerically, strings (text, times) lexically, false before true.
func compareValues(a, b any) int {
	if fa, ok := toFloat(a); ok {
		if fb, ok := toFloat(b); ok {
			return cmp.Compare(fa, fb)
		}
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}
	}
	return strings.Compare(formatValue(a), formatValue(b))
}

// compareNullsLast orders values with nulls after every other value.
func compareNullsLast(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return compareValues(a, b)
}

// round returns x rounded to places decimals.
func round(x float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(x*p) / p
}
