package workspacedemo

import "fmt"

// Structured filter conditions: what applyFilter, proposeApplyFilter and
// saved views hold, turned into the predicates of filter.go.

// condition is the Condition shape of the records design: one structured
// filter condition, as applyFilter and saved views hold them.
type condition struct {
	Column   string `json:"column"`
	Operator string `json:"operator"`
	Value    any    `json:"value,omitempty"`
}

// conditionPredicate converts a structured condition on t.
func conditionPredicate(t *table, c condition) (predicate, error) {
	ci, err := t.mustCol(c.Column)
	if err != nil {
		return predicate{}, err
	}
	pred := predicate{col: ci, name: c.Column, op: c.Operator}
	var raw []any
	switch c.Operator {
	case "isNull", "isNotNull":
		if c.Value != nil {
			return predicate{}, fmt.Errorf("condition on %s: %s takes no value: omit it", c.Column, c.Operator)
		}
		return pred, nil
	case "in":
		list, ok := c.Value.([]any)
		if !ok || len(list) == 0 {
			return predicate{}, fmt.Errorf("condition on %s: in needs an array of values, e.g. [\"late\", \"pending\"]", c.Column)
		}
		raw = list
	case "eq", "ne", "lt", "lte", "gt", "gte", "contains", "startsWith":
		if c.Value == nil {
			return predicate{}, fmt.Errorf("condition on %s: %s needs a value", c.Column, c.Operator)
		}
		if _, isList := c.Value.([]any); isList {
			return predicate{}, fmt.Errorf("condition on %s: %s takes one value; use the operator in for a list", c.Column, c.Operator)
		}
		raw = []any{c.Value}
	default:
		return predicate{}, fmt.Errorf("condition on %s: unknown operator %q; use eq, ne, lt, lte, gt, gte, contains, startsWith, in, isNull or isNotNull", c.Column, c.Operator)
	}
	return finishPredicate(t.columns[ci], pred, raw)
}

// conditionsFilter converts structured conditions on t.
func conditionsFilter(t *table, cs []condition) (filter, error) {
	var f filter
	for _, c := range cs {
		p, err := conditionPredicate(t, c)
		if err != nil {
			return nil, err
		}
		f = append(f, p)
	}
	return f, nil
}
