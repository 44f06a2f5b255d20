package eval

import "errors"

// errUnknownName is the reason Evaluate gives a label its known function
// rejects.
var errUnknownName = errors.New("names no tool")

// A Label is one relevant name of a query that names no tool.
type Label struct {
	// Query is the ID of the query that lists the label.
	Query string
	// Name is the label as the query set writes it.
	Name string
	// Err says why the label names no tool: the error the resolve
	// function given to Match returned.
	Err error
}

// Coverage says what of a query set a catalog leaves out: the labels that
// name none of its tools, and the queries left with no label at all. A
// score computed without them is honest only when the coverage is
// complete, since dropping a wrong label can raise a query's recall to 1.
type Coverage struct {
	// Unknown lists every label that names no tool, in query order, then
	// in the order the query lists its labels.
	Unknown []Label
	// Skipped lists, in query order, the IDs of the queries left with no
	// label naming a tool: they are not evaluated.
	Skipped []string
}

// Complete reports whether every label of every query names a tool, so
// that nothing was left out.
func (c Coverage) Complete() bool {
	return len(c.Unknown) == 0 && len(c.Skipped) == 0
}

// Match resolves every label of queries to the name of the tool it
// designates (resolve may accept a short name, such as a tool's name
// without its toolset, and return the full one). It returns the queries
// whose labels name tools, with their labels replaced by the resolved
// names and repeats dropped, and the Coverage that names every label
// resolve refused and every query left with no label. A nil resolve
// accepts every label as written. queries is not modified.
func Match(queries []Query, resolve func(label string) (string, error)) ([]Query, Coverage) {
	var cov Coverage
	out := make([]Query, 0, len(queries))
	for _, q := range queries {
		relevant := make([]string, 0, len(q.Relevant))
		seen := make(map[string]bool, len(q.Relevant))
		for _, label := range q.Relevant {
			name := label
			if resolve != nil {
				var err error
				if name, err = resolve(label); err != nil {
					cov.Unknown = append(cov.Unknown, Label{Query: q.ID, Name: label, Err: err})
					continue
				}
			}
			if !seen[name] {
				seen[name] = true
				relevant = append(relevant, name)
			}
		}
		if len(relevant) == 0 {
			cov.Skipped = append(cov.Skipped, q.ID)
			continue
		}
		q.Relevant = relevant
		out = append(out, q)
	}
	return out, cov
}

// knownResolver turns Evaluate's known function into a resolve function
// for Match; a nil known accepts every name.
func knownResolver(known func(name string) bool) func(string) (string, error) {
	if known == nil {
		return nil
	}
	return func(name string) (string, error) {
		if !known(name) {
			return "", errUnknownName
		}
		return name, nil
	}
}
