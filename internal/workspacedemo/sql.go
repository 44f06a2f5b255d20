package workspacedemo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// sqlSyntax ends every SQL error: the subset the workspace runs.
const sqlSyntax = "The demo workspace runs one-table SELECTs: SELECT * | column, count(*), count(column), sum(column), " +
	"avg(column), min(column), max(column) [AS name], ... FROM schema.table [WHERE conditions joined by AND] " +
	"[GROUP BY column] [ORDER BY name [ASC|DESC], ...] [LIMIT n]. Joins, subqueries, WITH, OR and expressions are not supported."

// selectItem is one output column of a SELECT.
type selectItem struct {
	agg  string // "", count, sum, avg, min or max
	col  int    // table column, or -1 for count(*)
	name string // output name
}

// orderKey is one ORDER BY key.
type orderKey struct {
	name string
	desc bool
	pos  int // output column (aggregated) or table column
}

// selectStmt is a parsed SELECT of the supported subset.
type selectStmt struct {
	table *table
	star  bool
	items []selectItem
	where filter
	group int // table column, or -1
	order []orderKey
	limit int // -1 for none
}

// aggregated reports whether the statement groups rows.
func (s *selectStmt) aggregated() bool {
	return s.group >= 0 || slices.ContainsFunc(s.items, func(it selectItem) bool { return it.agg != "" })
}

// rawItem is a select item before the table is known.
type rawItem struct {
	agg, col, alias string
}

// parseSelect parses sql as a read-only SELECT of the supported subset.
func (w *Workspace) parseSelect(sql string) (*selectStmt, error) {
	s, err := w.parseSelectErr(sql)
	if err != nil {
		return nil, fmt.Errorf("%w. %s", err, sqlSyntax)
	}
	return s, nil
}

func (w *Workspace) parseSelectErr(sql string) (*selectStmt, error) {
	p, err := newParser(sql)
	if err != nil {
		return nil, err
	}
	first := p.peek()
	for _, kw := range []string{"insert", "update", "delete", "merge", "create", "drop", "alter", "truncate", "grant", "revoke"} {
		if first.isKeyword(kw) {
			return nil, fmt.Errorf("%s statements are not run: queries are read-only; stage row changes with stageRowEdits and structure changes with stageSchemaChange", strings.ToUpper(kw))
		}
	}
	if !p.keyword("select") {
		return nil, fmt.Errorf("expected SELECT at the start, found %s", first.describe())
	}
	s := &selectStmt{group: -1, limit: -1}
	var raws []rawItem
	if p.symbol("*") {
		s.star = true
	} else {
		for {
			it, err := p.selectItem()
			if err != nil {
				return nil, err
			}
			raws = append(raws, it)
			if !p.symbol(",") {
				break
			}
		}
	}
	if !p.keyword("from") {
		return nil, fmt.Errorf("expected FROM at position %d, found %s", p.peek().pos+1, p.peek().describe())
	}
	if tok := p.peek(); tok.kind == tokSymbol && tok.text == "(" {
		return nil, fmt.Errorf("subqueries are not supported (position %d)", tok.pos+1)
	}
	name, err := p.ident("a table name")
	if err != nil {
		return nil, err
	}
	if s.table, err = w.table(name); err != nil {
		return nil, err
	}
	if tok := p.peek(); tok.kind == tokSymbol && tok.text == "," || slices.ContainsFunc(p.toks[p.i:], func(t token) bool { return t.isKeyword("join") }) {
		return nil, fmt.Errorf("joins are not supported (position %d): query one table at a time; listRelations gives the joining columns", tok.pos+1)
	}
	if tok := p.peek(); tok.kind == tokIdent && !slices.ContainsFunc([]string{"where", "group", "order", "limit"}, tok.isKeyword) {
		return nil, fmt.Errorf("unexpected %s at position %d: table aliases are not supported, name columns alone", tok.describe(), tok.pos+1)
	}
	if err := s.resolveItems(raws); err != nil {
		return nil, err
	}
	if p.keyword("where") {
		if s.where, err = p.conditions(s.table); err != nil {
			return nil, err
		}
	}
	if p.keyword("group") {
		if !p.keyword("by") {
			return nil, fmt.Errorf("expected BY after GROUP at position %d", p.peek().pos+1)
		}
		col, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		if s.group, err = s.table.mustCol(col); err != nil {
			return nil, err
		}
	}
	if p.keyword("order") {
		if !p.keyword("by") {
			return nil, fmt.Errorf("expected BY after ORDER at position %d", p.peek().pos+1)
		}
		for {
			name, err := p.ident("a column name")
			if err != nil {
				return nil, err
			}
			k := orderKey{name: name}
			if p.keyword("desc") {
				k.desc = true
			} else {
				p.keyword("asc")
			}
			s.order = append(s.order, k)
			if !p.symbol(",") {
				break
			}
		}
	}
	if p.keyword("limit") {
		tok := p.next()
		n, err := strconv.Atoi(tok.text)
		if tok.kind != tokNumber || err != nil || n < 0 {
			return nil, fmt.Errorf("expected a row count after LIMIT at position %d, found %s", tok.pos+1, tok.describe())
		}
		s.limit = n
	}
	p.symbol(";")
	if tok := p.peek(); tok.kind != tokEOF {
		return nil, fmt.Errorf("unexpected %s at position %d", tok.describe(), tok.pos+1)
	}
	return s, s.check()
}

// selectItem parses column | agg(*|column) [AS alias].
func (p *parser) selectItem() (rawItem, error) {
	name, err := p.ident("a column or an aggregate")
	if err != nil {
		return rawItem{}, err
	}
	var it rawItem
	if p.symbol("(") {
		it.agg = strings.ToLower(name)
		if !slices.Contains([]string{"count", "sum", "avg", "min", "max"}, it.agg) {
			return rawItem{}, fmt.Errorf("function %s is not supported: use count, sum, avg, min or max", name)
		}
		if p.symbol("*") {
			if it.agg != "count" {
				return rawItem{}, fmt.Errorf("%s(*) is not valid: give a column", it.agg)
			}
		} else if it.col, err = p.ident("a column name"); err != nil {
			return rawItem{}, err
		}
		if err := p.expectSymbol(")"); err != nil {
			return rawItem{}, err
		}
	} else {
		it.col = name
	}
	if p.keyword("as") {
		if it.alias, err = p.ident("a column alias"); err != nil {
			return rawItem{}, err
		}
	}
	return it, nil
}

// resolveItems resolves the select items on s.table.
func (s *selectStmt) resolveItems(raws []rawItem) error {
	for _, r := range raws {
		it := selectItem{agg: r.agg, col: -1, name: r.alias}
		if r.col != "" {
			i, err := s.table.mustCol(r.col)
			if err != nil {
				return err
			}
			it.col = i
		}
		if (r.agg == "sum" || r.agg == "avg") && !s.table.columns[it.col].kind.numeric() {
			return fmt.Errorf("%s(%s): column %s is %s, not a number", r.agg, r.col, r.col, s.table.columns[it.col].typ)
		}
		if it.name == "" {
			it.name = r.col
			if r.agg != "" {
				it.name = r.agg
			}
		}
		s.items = append(s.items, it)
	}
	return nil
}

// check validates grouping and resolves the ORDER BY keys.
func (s *selectStmt) check() error {
	agg := s.aggregated()
	if agg && s.star {
		return fmt.Errorf("SELECT * cannot be grouped: list the GROUP BY column and aggregates")
	}
	for _, it := range s.items {
		if agg && it.agg == "" && it.col != s.group {
			return fmt.Errorf("column %s must be the GROUP BY column or inside an aggregate", s.table.columns[it.col].name)
		}
	}
	for i, k := range s.order {
		out := slices.IndexFunc(s.items, func(it selectItem) bool { return it.name == k.name })
		switch {
		case agg && out < 0:
			names := make([]string, len(s.items))
			for j, it := range s.items {
				names[j] = it.name
			}
			return fmt.Errorf("ORDER BY %s: order a grouped query by one of its output columns: %s (name aggregates with AS)", k.name, strings.Join(names, ", "))
		case agg:
			s.order[i].pos = out
		case out >= 0:
			s.order[i].pos = s.items[out].col
		default:
			c, err := s.table.mustCol(k.name)
			if err != nil {
				return err
			}
			s.order[i].pos = c
		}
	}
	return nil
}

// columns returns the statement's output column names.
func (s *selectStmt) columns() []string {
	if s.star {
		return s.table.columnNames()
	}
	out := make([]string, len(s.items))
	for i, it := range s.items {
		out[i] = it.name
	}
	return out
}

// run executes the statement: its output columns and rows.
func (s *selectStmt) run() ([]string, [][]any) {
	src := scan(s.table, s.where)
	var out [][]any
	if !s.aggregated() {
		sortRows(src, s.order)
		for _, r := range src {
			if s.star {
				out = append(out, slices.Clone(r))
				continue
			}
			row := make([]any, len(s.items))
			for i, it := range s.items {
				row[i] = r[it.col]
			}
			out = append(out, row)
		}
	} else {
		var keys []any
		groups := map[string][][]any{}
		for _, r := range src {
			var k any
			if s.group >= 0 {
				k = r[s.group]
			}
			ks := fmt.Sprintf("%T:%v", k, k)
			if _, ok := groups[ks]; !ok {
				keys = append(keys, k)
			}
			groups[ks] = append(groups[ks], r)
		}
		if s.group < 0 && len(keys) == 0 {
			keys = []any{nil}
		}
		for _, k := range keys {
			rows := groups[fmt.Sprintf("%T:%v", k, k)]
			row := make([]any, len(s.items))
			for i, it := range s.items {
				if it.agg == "" {
					row[i] = k
				} else {
					row[i] = aggregate(s.table, it, rows)
				}
			}
			out = append(out, row)
		}
		sortRows(out, s.order)
	}
	if s.limit >= 0 && len(out) > s.limit {
		out = out[:s.limit]
	}
	return s.columns(), out
}
