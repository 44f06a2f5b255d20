package workspacedemo

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// filterSyntax is what every filter error ends with: the grammar the
// workspace understands, so a model can rewrite its filter.
const filterSyntax = "The workspace filter syntax is conditions joined by AND: column = 'text', column > 100, " +
	"column IN ('a', 'b'), column LIKE 'A%', column IS NULL, column IS NOT NULL " +
	"(operators =, !=, <>, <, <=, >, >=; text and times in single quotes; OR and parentheses are not supported)."

// predicate is one condition on one column.
type predicate struct {
	col  int
	name string
	// op is eq, ne, lt, lte, gt, gte, in, notIn, like, notLike, isNull,
	// isNotNull, contains or startsWith.
	op   string
	vals []any
	re   *regexp.Regexp // like, notLike
}

// filter is a conjunction of predicates; nil matches every row.
type filter []predicate

// match reports whether row meets every predicate.
func (f filter) match(row []any) bool {
	for _, p := range f {
		if !p.match(row[p.col]) {
			return false
		}
	}
	return true
}

// String renders f in the filter syntax.
func (f filter) String() string {
	parts := make([]string, len(f))
	for i, p := range f {
		parts[i] = p.String()
	}
	return strings.Join(parts, " and ")
}

func (p predicate) match(v any) bool {
	switch p.op {
	case "isNull":
		return v == nil
	case "isNotNull":
		return v != nil
	}
	if v == nil {
		return false
	}
	switch p.op {
	case "eq":
		return compareValues(v, p.vals[0]) == 0
	case "ne":
		return compareValues(v, p.vals[0]) != 0
	case "lt":
		return compareValues(v, p.vals[0]) < 0
	case "lte":
		return compareValues(v, p.vals[0]) <= 0
	case "gt":
		return compareValues(v, p.vals[0]) > 0
	case "gte":
		return compareValues(v, p.vals[0]) >= 0
	case "in", "notIn":
		found := false
		for _, x := range p.vals {
			if compareValues(v, x) == 0 {
				found = true
				break
			}
		}
		return found == (p.op == "in")
	case "like":
		return p.re.MatchString(formatValue(v))
	case "notLike":
		return !p.re.MatchString(formatValue(v))
	case "contains":
		return strings.Contains(strings.ToLower(formatValue(v)), strings.ToLower(formatValue(p.vals[0])))
	case "startsWith":
		return strings.HasPrefix(strings.ToLower(formatValue(v)), strings.ToLower(formatValue(p.vals[0])))
	}
	return false
}

// comparisons lists the comparison operators with their text forms.
func comparisons() [][2]string {
	return [][2]string{{"eq", "="}, {"ne", "!="}, {"ne", "<>"}, {"lt", "<"}, {"lte", "<="}, {"gt", ">"}, {"gte", ">="}}
}

// opSymbol returns the text form of a comparison operator.
func opSymbol(op string) string {
	for _, c := range comparisons() {
		if c[0] == op {
			return c[1]
		}
	}
	return op
}

// String renders p in the filter syntax.
func (p predicate) String() string {
	lit := func(v any) string {
		switch x := v.(type) {
		case string:
			return "'" + strings.ReplaceAll(x, "'", "''") + "'"
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return formatValue(v)
	}
	switch p.op {
	case "isNull":
		return p.name + " IS NULL"
	case "isNotNull":
		return p.name + " IS NOT NULL"
	case "in", "notIn":
		items := make([]string, len(p.vals))
		for i, v := range p.vals {
			items[i] = lit(v)
		}
		kw := " IN ("
		if p.op == "notIn" {
			kw = " NOT IN ("
		}
		return p.name + kw + strings.Join(items, ", ") + ")"
	case "like":
		return p.name + " LIKE " + lit(p.vals[0])
	case "notLike":
		return p.name + " NOT LIKE " + lit(p.vals[0])
	case "contains":
		return p.name + " LIKE " + lit("%"+formatValue(p.vals[0])+"%")
	case "startsWith":
		return p.name + " LIKE " + lit(formatValue(p.vals[0])+"%")
	}
	return p.name + " " + opSymbol(p.op) + " " + lit(p.vals[0])
}

// parseFilter parses a filter string against t's columns; "" is no
// filter. Errors end with the syntax the workspace understands.
func parseFilter(t *table, src string) (filter, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	f, err := func() (filter, error) {
		p, err := newParser(src)
		if err != nil {
			return nil, err
		}
		f, err := p.conditions(t)
		if err != nil {
			return nil, err
		}
		if tok := p.peek(); tok.kind != tokEOF {
			return nil, fmt.Errorf("unexpected %s at position %d", tok.describe(), tok.pos+1)
		}
		return f, nil
	}()
	if err != nil {
		return nil, fmt.Errorf("filter %q: %w. %s", src, err, filterSyntax)
	}
	return f, nil
}

// conditions parses cond { AND cond }.
func (p *parser) conditions(t *table) (filter, error) {
	var f filter
	for {
		pred, err := p.condition(t)
		if err != nil {
			return nil, err
		}
		f = append(f, pred)
		if p.keyword("and") {
			continue
		}
		if tok := p.peek(); tok.isKeyword("or") {
			return nil, fmt.Errorf("OR at position %d is not supported: use IN ('a', 'b') for alternatives on one column, or make one call per alternative", tok.pos+1)
		}
		return f, nil
	}
}

// condition parses one condition on a column of t.
func (p *parser) condition(t *table) (predicate, error) {
	if tok := p.peek(); tok.kind == tokSymbol && tok.text == "(" {
		return predicate{}, fmt.Errorf("parentheses at position %d are not supported", tok.pos+1)
	}
	if tok := p.peek(); tok.isKeyword("not") {
		return predicate{}, fmt.Errorf("NOT at position %d is not supported before a condition: use !=, NOT IN or NOT LIKE", tok.pos+1)
	}
	name, err := p.ident("a column name")
	if err != nil {
		return predicate{}, err
	}
	ci, err := t.mustCol(name)
	if err != nil {
		return predicate{}, err
	}
	pred := predicate{col: ci, name: name}
	c := t.columns[ci]
	switch {
	case p.keyword("is"):
		pred.op = "isNull"
		if p.keyword("not") {
			pred.op = "isNotNull"
		}
		if !p.keyword("null") {
			return predicate{}, fmt.Errorf("expected NULL after IS at position %d", p.peek().pos+1)
		}
		return pred, nil
	case p.keyword("not"):
		switch {
		case p.keyword("in"):
			pred.op = "notIn"
		case p.keyword("like"):
			pred.op = "notLike"
		default:
			return predicate{}, fmt.Errorf("expected IN or LIKE after NOT at position %d", p.peek().pos+1)
		}
	case p.keyword("in"):
		pred.op = "in"
	case p.keyword("like"):
		pred.op = "like"
	default:
		tok := p.next()
		for _, c := range comparisons() {
			if tok.kind == tokSymbol && tok.text == c[1] {
				pred.op = c[0]
			}
		}
		if pred.op == "" {
			return predicate{}, fmt.Errorf("expected an operator after %s at position %d, found %s", name, tok.pos+1, tok.describe())
		}
	}
	var raw []any
	if pred.op == "in" || pred.op == "notIn" {
		if err := p.expectSymbol("("); err != nil {
			return predicate{}, err
		}
		for {
			v, err := p.literal()
			if err != nil {
				return predicate{}, err
			}
			raw = append(raw, v)
			if !p.symbol(",") {
				break
			}
		}
		if err := p.expectSymbol(")"); err != nil {
			return predicate{}, err
		}
	} else {
		v, err := p.literal()
		if err != nil {
			return predicate{}, err
		}
		raw = []any{v}
	}
	return finishPredicate(c, pred, raw)
}

// literal parses a string, a number, TRUE or FALSE; numbers become
// json.Number.
func (p *parser) literal() (any, error) {
	tok := p.next()
	switch {
	case tok.kind == tokString:
		return tok.text, nil
	case tok.kind == tokNumber:
		return json.Number(tok.text), nil
	case tok.isKeyword("true"):
		return true, nil
	case tok.isKeyword("false"):
		return false, nil
	case tok.isKeyword("null"):
		return nil, fmt.Errorf("compare with NULL using IS NULL or IS NOT NULL (position %d)", tok.pos+1)
	case tok.kind == tokIdent:
		return nil, fmt.Errorf("expected a value at position %d, found %s: quote text values, e.g. status = 'late'", tok.pos+1, tok.describe())
	}
	return nil, fmt.Errorf("expected a value at position %d, found %s", tok.pos+1, tok.describe())
}

// finishPredicate coerces the raw values to column c and checks that the
// operator applies to it.
func finishPredicate(c column, pred predicate, raw []any) (predicate, error) {
	switch pred.op {
	case "like", "notLike", "contains", "startsWith":
		if c.kind != kindText {
			return predicate{}, fmt.Errorf("column %s is %s: pattern matching applies to text columns only", c.name, c.typ)
		}
	case "lt", "lte", "gt", "gte":
		if c.kind == kindBool {
			return predicate{}, fmt.Errorf("column %s is boolean: compare it with = true or = false", c.name)
		}
	}
	for _, v := range raw {
		fv, err := filterValue(c, v)
		if err != nil {
			return predicate{}, err
		}
		pred.vals = append(pred.vals, fv)
	}
	if pred.op == "like" || pred.op == "notLike" {
		pred.re = likePattern(pred.vals[0].(string))
	}
	return pred, nil
}

// filterValue converts a literal (json.Number, float64, string, bool) to
// a value comparable with column c's values.
func filterValue(c column, v any) (any, error) {
	if f, ok := v.(float64); ok {
		v = json.Number(strconv.FormatFloat(f, 'f', -1, 64))
	}
	switch c.kind {
	case kindInt, kindNumeric:
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				return f, nil
			}
		}
		return nil, fmt.Errorf("column %s is %s: compare it with a number, e.g. %s > 100, not %s", c.name, c.typ, c.name, describeValue(v))
	case kindText:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return nil, fmt.Errorf("column %s is %s: quote the value, e.g. %s = '%s'", c.name, c.typ, c.name, formatValue(v))
	case kindTime:
		if s, ok := v.(string); ok && len(s) >= 10 && validTime(s[:10]) {
			return s, nil
		}
		return nil, fmt.Errorf("column %s is %s: compare it with a quoted date or time, e.g. %s >= '2025-03-01', not %s", c.name, c.typ, c.name, describeValue(v))
	case kindBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(x); err == nil {
				return b, nil
			}
		}
		return nil, fmt.Errorf("column %s is boolean: compare it with true or false, not %s", c.name, describeValue(v))
	}
	return nil, errors.New("unknown column type")
}

// likePattern compiles a LIKE pattern: % is any text, _ one character.
func likePattern(pat string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)^")
	for _, r := range pat {
		switch r {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
