package workspacedemo

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The query and schema introspection tools (design: query.go).

type runQueryArgs struct {
	SQL            string `json:"sql"`
	MaxRows        *int   `json:"maxRows"`
	TimeoutSeconds *int   `json:"timeoutSeconds"`
}

type runQueryResult struct {
	rowsResult
	bounds
}

// runQuery runs a SELECT of the supported subset. timeoutSeconds is
// accepted and has nothing to cancel: queries run in memory at once.
func (w *Workspace) runQuery(a runQueryArgs) (any, error) {
	s, err := w.parseSelect(a.SQL)
	if err != nil {
		return nil, err
	}
	limit := 500
	if a.MaxRows != nil {
		limit = *a.MaxRows
	}
	cols, rows := s.run()
	shown := rows[:min(limit, len(rows))]
	return runQueryResult{
		rowsResult: rowsResult{Columns: cols, Rows: append([][]any{}, shown...)},
		bounds:     boundsOf(len(shown), len(rows), fmt.Sprintf("The query returned %d rows and %d are shown: add a WHERE condition or a LIMIT, aggregate with GROUP BY, or raise maxRows (at most 5000).", len(rows), len(shown))),
	}, nil
}

type explainQueryArgs struct {
	SQL     string `json:"sql"`
	Analyze bool   `json:"analyze"`
}

type explainQueryResult struct {
	Plan            string   `json:"plan"`
	EstimatedCost   float64  `json:"estimatedCost"`
	SequentialScans []string `json:"sequentialScans,omitempty"`
	Indexes         []string `json:"indexes,omitempty"`
}

// explainQuery describes how the workspace runs a SELECT: an index scan
// when an index is led by a column the WHERE tests for equality or a
// range, a sequential scan otherwise, then aggregation, sort and limit.
func (w *Workspace) explainQuery(a explainQueryArgs) (any, error) {
	s, err := w.parseSelect(a.SQL)
	if err != nil {
		return nil, err
	}
	t := s.table
	matched := 0
	for _, r := range t.rows {
		if s.where.match(r) {
			matched++
		}
	}
	var res explainQueryResult
	var nodes []string
	if s.limit >= 0 {
		nodes = append(nodes, fmt.Sprintf("Limit (rows=%d)", s.limit))
	}
	if len(s.order) > 0 {
		keys := make([]string, len(s.order))
		for i, k := range s.order {
			keys[i] = k.name
			if k.desc {
				keys[i] += " desc"
			}
		}
		nodes = append(nodes, "Sort (key: "+strings.Join(keys, ", ")+")")
		res.EstimatedCost += 0.05 * float64(matched) * math.Log2(float64(matched)+1)
	}
	if s.aggregated() {
		if s.group >= 0 {
			nodes = append(nodes, "HashAggregate (group: "+t.columns[s.group].name+")")
		} else {
			nodes = append(nodes, "Aggregate")
		}
		res.EstimatedCost += 0.01 * float64(matched)
	}
	ix, pred := chooseIndex(t, s.where)
	var scanNode string
	if ix != nil {
		scanNode = fmt.Sprintf("Index Scan using %s on %s (cond: %s", ix.name, t.name, pred.String())
		var rest filter
		for i := range s.where {
			if &s.where[i] != pred {
				rest = append(rest, s.where[i])
			}
		}
		if len(rest) > 0 {
			scanNode += "; filter: " + rest.String()
		}
		scanNode += ")"
		res.Indexes = []string{ix.name}
		res.EstimatedCost += 0.3 + 0.02*float64(matched)
	} else {
		scanNode = "Seq Scan on " + t.name
		if len(s.where) > 0 {
			scanNode += " (filter: " + s.where.String() + ")"
		}
		res.SequentialScans = []string{t.name}
		res.EstimatedCost += 0.25 * float64(len(t.rows))
	}
	nodes = append(nodes, fmt.Sprintf("%s rows=%d", scanNode, matched))
	lines := make([]string, len(nodes))
	for i, n := range nodes {
		if i > 0 {
			n = strings.Repeat("  ", i-1) + "-> " + n
		}
		lines[i] = n
	}
	if a.Analyze {
		_, rows := s.run()
		lines = append(lines, fmt.Sprintf("Actual: %d rows scanned, %d rows returned", matched, len(rows)))
	}
	res.Plan = strings.Join(lines, "\n")
	res.EstimatedCost = round(res.EstimatedCost, 2)
	return res, nil
}

type findColumnsArgs struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type columnMatch struct {
	Table   string `json:"table"`
	Column  string `json:"column"`
	Type    string `json:"type"`
	Comment string `json:"comment,omitempty"`
	score   int
}

type findColumnsResult struct {
	Columns []columnMatch `json:"columns"`
	bounds
}

// maxColumnMatches bounds findColumns's result.
const maxColumnMatches = 25

// findColumns matches columns whose table, name and comment together
// hold every word of the text; a column named like the text ranks first.
func (w *Workspace) findColumns(a findColumnsArgs) (any, error) {
	words := strings.Fields(strings.ToLower(a.Text))
	if len(words) == 0 {
		return nil, errors.New("give words to look for in column names and comments")
	}
	joined := strings.Join(words, "_")
	var all []columnMatch
	for _, n := range w.tableNames() {
		t := w.tables[n]
		for _, c := range t.columns {
			if a.Type != "" && !strings.Contains(strings.ToLower(c.typ), strings.ToLower(a.Type)) {
				continue
			}
			hay := strings.ToLower(t.name + " " + c.name + " " + strings.ReplaceAll(c.name, "_", " ") + " " + c.comment)
			if !allIn(words, hay) {
				continue
			}
			score := 1
			switch {
			case c.name == joined:
				score = 3
			case slices.ContainsFunc(words, func(wd string) bool { return strings.Contains(c.name, wd) }):
				score = 2
			}
			all = append(all, columnMatch{Table: n, Column: c.name, Type: c.typ, Comment: c.comment, score: score})
		}
	}
	slices.SortStableFunc(all, func(a, b columnMatch) int { return b.score - a.score })
	shown := all[:min(maxColumnMatches, len(all))]
	return findColumnsResult{
		Columns: append([]columnMatch{}, shown...),
		bounds:  boundsOf(len(shown), len(all), "Add words to the text or give a type, e.g. timestamp, to narrow the match."),
	}, nil
}

// allIn reports whether every word occurs in hay.
func allIn(words []string, hay string) bool {
	for _, wd := range words {
		if !strings.Contains(hay, wd) {
			return false
		}
	}
	return true
}

type getColumnStatsArgs struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Sample bool   `json:"sample"`
}

type columnStatsResult struct {
	NullFraction float64  `json:"nullFraction"`
	Distinct     int64    `json:"distinct"`
	Min          any      `json:"min,omitempty"`
	Max          any      `json:"max,omitempty"`
	Mean         *float64 `json:"mean,omitempty"`
	MostCommon   []any    `json:"mostCommon,omitempty"`
	Histogram    []int64  `json:"histogram,omitempty"`
}

// getColumnStats profiles a column exactly (sample changes nothing: the
// tables are small): null fraction, distinct count, min, max, mean of
// numbers, the five most common values and ten equal-width buckets.
func (w *Workspace) getColumnStats(a getColumnStatsArgs) (any, error) {
	t, err := w.table(a.Table)
	if err != nil {
		return nil, err
	}
	ci, err := t.mustCol(a.Column)
	if err != nil {
		return nil, err
	}
	var res columnStatsResult
	var vals []any
	counts := map[any]int{}
	for _, r := range t.rows {
		if v := r[ci]; v != nil {
			if counts[v] == 0 {
				vals = append(vals, v)
			}
			counts[v]++
		}
	}
	if n := len(t.rows); n > 0 {
		nonNull := 0
		for _, c := range counts {
			nonNull += c
		}
		res.NullFraction = round(float64(n-nonNull)/float64(n), 4)
	}
	res.Distinct = int64(len(vals))
	if len(vals) == 0 {
		return res, nil
	}
	slices.SortFunc(vals, compareValues)
	res.Min, res.Max = vals[0], vals[len(vals)-1]
	common := slices.Clone(vals)
	slices.SortStableFunc(common, func(a, b any) int { return counts[b] - counts[a] })
	res.MostCommon = common[:min(5, len(common))]
	if !t.columns[ci].kind.numeric() {
		return res, nil
	}
	lo, _ := toFloat(res.Min)
	hi, _ := toFloat(res.Max)
	var sum float64
	total := 0
	res.Histogram = make([]int64, 10)
	for _, v := range vals {
		f, _ := toFloat(v)
		sum += f * float64(counts[v])
		total += counts[v]
		b := 0
		if hi > lo {
			b = min(int((f-lo)/(hi-lo)*10), 9)
		}
		res.Histogram[b] += int64(counts[v])
	}
	mean := round(sum/float64(total), 4)
	res.Mean = &mean
	return res, nil
}

type getIndexStatsArgs struct {
	Table         string `json:"table"`
	IncludeUnused bool   `json:"includeUnused"`
}

type indexStat struct {
	Name        string   `json:"name"`
	Columns     []string `json:"columns"`
	SizeBytes   int64    `json:"sizeBytes"`
	Scans       int64    `json:"scans"`
	Unused      bool     `json:"unused"`
	DuplicateOf string   `json:"duplicateOf,omitempty"`
}

type getIndexStatsResult struct {
	Indexes []indexStat `json:"indexes"`
}

// getIndexStats reports t's indexes; scans count the reads whose plan
// used the index since the workspace started (on top of the seeded
// figures). Unused indexes are left out unless includeUnused.
func (w *Workspace) getIndexStats(a getIndexStatsArgs) (any, error) {
	t, err := w.table(a.Table)
	if err != nil {
		return nil, err
	}
	res := getIndexStatsResult{Indexes: []indexStat{}}
	for i, ix := range t.indexes {
		st := indexStat{Name: ix.name, Columns: slices.Clone(ix.columns), SizeBytes: 8192 + int64(len(t.rows)*len(ix.columns)*16),
			Scans: ix.scans, Unused: ix.scans == 0}
		for _, prev := range t.indexes[:i] {
			if slices.Equal(prev.columns, ix.columns) {
				st.DuplicateOf = prev.name
				break
			}
		}
		if st.Unused && !a.IncludeUnused {
			continue
		}
		res.Indexes = append(res.Indexes, st)
	}
	return res, nil
}

type listRelationsArgs struct {
	Table     string `json:"table"`
	Direction string `json:"direction"`
}

type relation struct {
	Direction    string   `json:"direction"`
	Table        string   `json:"table"`
	Columns      []string `json:"columns"`
	OtherColumns []string `json:"otherColumns"`
	Constraint   string   `json:"constraint,omitempty"`
}

type listRelationsResult struct {
	Relations []relation `json:"relations"`
}

func (w *Workspace) listRelations(a listRelationsArgs) (any, error) {
	t, err := w.table(a.Table)
	if err != nil {
		return nil, err
	}
	dir := firstNonEmpty(a.Direction, "both")
	res := listRelationsResult{Relations: []relation{}}
	for _, fk := range w.fks {
		if fk.table == t.name && dir != "incoming" {
			res.Relations = append(res.Relations, relation{Direction: "outgoing", Table: fk.refTable,
				Columns: slices.Clone(fk.columns), OtherColumns: slices.Clone(fk.refColumns), Constraint: fk.name})
		}
		if fk.refTable == t.name && dir != "outgoing" {
			res.Relations = append(res.Relations, relation{Direction: "incoming", Table: fk.table,
				Columns: slices.Clone(fk.refColumns), OtherColumns: slices.Clone(fk.columns), Constraint: fk.name})
		}
	}
	return res, nil
}
