package workspacedemo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The chart, workbench and workbook tools (design: workbench.go).

// chart is a chart over a table, a saved view or a SELECT.
type chart struct {
	id, title, typ string
	source         string
	x              string
	y              []string
	aggregate      string
	seriesBy       string
	workbook       string
	changed        time.Time
}

// workbook is an ordered list of cells.
type workbook struct {
	id, title, folder string
	cells             []cell
}

// cell is the Cell shape of the records design.
type cell struct {
	Kind   string `json:"kind"`
	Source string `json:"source"`
}

// workbenchTab is an opened SQL workbench tab.
type workbenchTab struct {
	id, sql, workbook string
}

type createChartArgs struct {
	Source    string   `json:"source"`
	Type      string   `json:"type"`
	X         string   `json:"x"`
	Y         []string `json:"y"`
	Aggregate string   `json:"aggregate"`
	SeriesBy  string   `json:"seriesBy"`
	Title     string   `json:"title"`
}

type chartIDResult struct {
	ChartID string `json:"chartId"`
}

func (w *Workspace) createChart(a createChartArgs) (any, error) {
	d, err := w.source(a.Source)
	if err != nil {
		return nil, err
	}
	xi, err := d.col(a.X)
	if err != nil {
		return nil, err
	}
	agg := firstNonEmpty(a.Aggregate, "sum")
	if len(a.Y) == 0 {
		if a.Aggregate != "" && a.Aggregate != "count" {
			return nil, fmt.Errorf("aggregate %s needs y columns; omit aggregate (or say count) to count rows per %s", a.Aggregate, a.X)
		}
		agg = "count"
	}
	for _, y := range a.Y {
		yi, err := d.col(y)
		if err != nil {
			return nil, err
		}
		if agg != "count" && agg != "none" && !d.kinds[yi].numeric() {
			return nil, fmt.Errorf("y column %s is not a number: use aggregate count, or chart a numeric column", y)
		}
	}
	if a.Type == "histogram" && !d.kinds[xi].numeric() {
		return nil, fmt.Errorf("a histogram needs a numeric x column, and %s is not one: use a bar chart", a.X)
	}
	if a.SeriesBy != "" {
		if _, err := d.col(a.SeriesBy); err != nil {
			return nil, err
		}
	}
	title := a.Title
	if title == "" {
		what := "rows"
		if len(a.Y) > 0 {
			what = strings.Join(a.Y, ", ")
		}
		title = fmt.Sprintf("%s by %s", what, a.X)
	}
	c := &chart{id: w.nextID("chart"), title: title, typ: a.Type, source: a.Source, x: a.X, y: slices.Clone(a.Y),
		aggregate: agg, seriesBy: a.SeriesBy, changed: w.tick()}
	w.charts = append(w.charts, c)
	return chartIDResult{ChartID: c.id}, nil
}

type listChartsArgs struct {
	Source   string `json:"source"`
	Workbook string `json:"workbook"`
}

type chartSummary struct {
	ChartID  string `json:"chartId"`
	Title    string `json:"title,omitempty"`
	Type     string `json:"type"`
	Source   string `json:"source"`
	Workbook string `json:"workbook,omitempty"`
}

type listChartsResult struct {
	Charts []chartSummary `json:"charts"`
}

func (w *Workspace) listCharts(a listChartsArgs) (any, error) {
	wb := ""
	if a.Workbook != "" {
		b, err := w.findWorkbook(a.Workbook)
		if err != nil {
			return nil, err
		}
		wb = b.id
	}
	var charts []*chart
	for _, c := range w.charts {
		if (a.Source == "" || w.sameSource(c.source, a.Source)) && (wb == "" || c.workbook == wb) {
			charts = append(charts, c)
		}
	}
	slices.SortStableFunc(charts, func(a, b *chart) int { return b.changed.Compare(a.changed) })
	res := listChartsResult{Charts: []chartSummary{}}
	for _, c := range charts {
		res.Charts = append(res.Charts, chartSummary{ChartID: c.id, Title: c.title, Type: c.typ, Source: c.source, Workbook: c.workbook})
	}
	return res, nil
}

// sameSource reports whether two source references name the same table
// or saved view (or are the same text).
func (w *Workspace) sameSource(a, b string) bool {
	if strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) {
		return true
	}
	ta, errA := w.table(a)
	tb, errB := w.table(b)
	return errA == nil && errB == nil && ta == tb
}

// renderChart renders c's data as text: one line per x value, in value
// order, with the aggregate of its first y column (or the row count).
func (w *Workspace) renderChart(c *chart) (string, error) {
	d, err := w.source(c.source)
	if err != nil {
		return "", fmt.Errorf("chart %s: %w", c.id, err)
	}
	xi, err := d.col(c.x)
	if err != nil {
		return "", fmt.Errorf("chart %s: %w", c.id, err)
	}
	yi := -1
	if len(c.y) > 0 && c.aggregate != "count" {
		if yi, err = d.col(c.y[0]); err != nil {
			return "", fmt.Errorf("chart %s: %w", c.id, err)
		}
	}
	var keys []string
	vals := map[string][]float64{}
	xs := map[string]any{}
	for _, r := range d.rows {
		k := formatValue(r[xi])
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
			vals[k], xs[k] = []float64{}, r[xi]
		}
		if yi < 0 {
			vals[k] = append(vals[k], 1)
		} else if f, ok := toFloat(r[yi]); ok {
			vals[k] = append(vals[k], f)
		}
	}
	slices.SortFunc(keys, func(a, b string) int { return compareNullsLast(xs[a], xs[b]) })
	var b strings.Builder
	what := "rows"
	if yi >= 0 {
		what = c.aggregate + " of " + c.y[0]
	}
	fmt.Fprintf(&b, "%s chart %q: %s by %s (%d points)", c.typ, c.title, what, c.x, len(keys))
	for i, k := range keys {
		if i == 20 {
			fmt.Fprintf(&b, "\n… %d more", len(keys)-20)
			break
		}
		fmt.Fprintf(&b, "\n%s: %s", k, formatValue(combine(c.aggregate, yi < 0, vals[k])))
	}
	return b.String(), nil
}

// combine aggregates the values of one chart point.
func combine(agg string, counting bool, vs []float64) float64 {
	if counting || agg == "count" {
		return float64(len(vs))
	}
	if len(vs) == 0 {
		return 0
	}
	out := vs[0]
	switch agg {
	case "sum", "avg":
		out = 0
		for _, v := range vs {
			out += v
		}
		if agg == "avg" {
			out /= float64(len(vs))
		}
	case "min":
		out = slices.Min(vs)
	case "max":
		out = slices.Max(vs)
	}
	return round(out, 2)
}

type workbenchArgs struct {
	SQL      string `json:"sql"`
	Workbook string `json:"workbook"`
	Reason   string `json:"reason"`
}

type openWorkbenchResult struct {
	Workbench string `json:"workbench"`
}

func (w *Workspace) openWorkbench(a workbenchArgs) (any, error) {
	tab := workbenchTab{id: w.nextID("workbench"), sql: a.SQL}
	if a.Workbook != "" {
		b, err := w.findWorkbook(a.Workbook)
		if err != nil {
			return nil, err
		}
		tab.workbook = b.id
	}
	w.benches = append(w.benches, tab)
	return openWorkbenchResult{Workbench: tab.id}, nil
}

func (w *Workspace) proposeOpenWorkbench(a workbenchArgs) (any, error) {
	label := "Open the SQL workbench"
	if a.SQL != "" {
		label += " with your query"
	}
	return w.propose(firstNonEmpty(a.Reason, label)), nil
}

type createWorkbookArgs struct {
	Title  string `json:"title"`
	Cells  []cell `json:"cells"`
	Folder string `json:"folder"`
}

type createWorkbookResult struct {
	Workbook string `json:"workbook"`
	Cells    int    `json:"cells"`
}

func (w *Workspace) createWorkbook(a createWorkbookArgs) (any, error) {
	if strings.TrimSpace(a.Title) == "" {
		return nil, errors.New("give the workbook a title")
	}
	for i, c := range a.Cells {
		switch c.Kind {
		case "sql":
			if _, err := w.parseSelect(c.Source); err != nil {
				return nil, fmt.Errorf("cell %d: %w", i, err)
			}
		case "chart":
			if w.findChart(c.Source) == nil {
				return nil, fmt.Errorf("cell %d: no chart %q: a chart cell's source is a chart id (listCharts lists them)", i, c.Source)
			}
		}
	}
	b := &workbook{id: w.nextID("wb"), title: a.Title, folder: a.Folder, cells: slices.Clone(a.Cells)}
	w.workbooks = append(w.workbooks, b)
	return createWorkbookResult{Workbook: b.id, Cells: len(b.cells)}, nil
}

// findChart returns the chart of that id, or nil.
func (w *Workspace) findChart(id string) *chart {
	for _, c := range w.charts {
		if c.id == id {
			return c
		}
	}
	return nil
}

// findWorkbook returns the workbook of that id or title.
func (w *Workspace) findWorkbook(ref string) (*workbook, error) {
	var byTitle []*workbook
	for _, b := range w.workbooks {
		if b.id == ref {
			return b, nil
		}
		if strings.EqualFold(b.title, strings.TrimSpace(ref)) {
			byTitle = append(byTitle, b)
		}
	}
	switch len(byTitle) {
	case 1:
		return byTitle[0], nil
	case 0:
		return nil, fmt.Errorf("no workbook %q: searchWorkspace with kinds [\"workbook\"] finds them", ref)
	}
	return nil, fmt.Errorf("several workbooks are titled %q: give the id of one", ref)
}

type runWorkbookCellArgs struct {
	Workbook  string `json:"workbook"`
	CellIndex *int   `json:"cellIndex"`
	RunAll    bool   `json:"runAll"`
}

type runWorkbookCellResult struct {
	CellIndex int      `json:"cellIndex"`
	Columns   []string `json:"columns,omitempty"`
	Rows      [][]any  `json:"rows,omitempty"`
	Output    string   `json:"output,omitempty"`
}

func (w *Workspace) runWorkbookCell(a runWorkbookCellArgs) (any, error) {
	b, err := w.findWorkbook(a.Workbook)
	if err != nil {
		return nil, err
	}
	if len(b.cells) == 0 {
		return nil, fmt.Errorf("workbook %s has no cells", b.id)
	}
	from, to := 0, len(b.cells)-1
	switch {
	case a.RunAll && a.CellIndex != nil:
		return nil, errors.New("give cellIndex or runAll, not both")
	case a.CellIndex != nil:
		if *a.CellIndex >= len(b.cells) {
			return nil, fmt.Errorf("workbook %s has %d cells: cellIndex goes from 0 to %d", b.id, len(b.cells), len(b.cells)-1)
		}
		from, to = *a.CellIndex, *a.CellIndex
	case !a.RunAll:
		return nil, errors.New("give the cellIndex of the cell to run, or runAll: true")
	}
	var res runWorkbookCellResult
	for i := from; i <= to; i++ {
		if res, err = w.runCell(i, b.cells[i]); err != nil {
			return nil, fmt.Errorf("workbook %s, cell %d: %w", b.id, i, err)
		}
	}
	return res, nil
}

// runCell runs one cell.
func (w *Workspace) runCell(i int, c cell) (runWorkbookCellResult, error) {
	res := runWorkbookCellResult{CellIndex: i}
	switch c.Kind {
	case "sql":
		d, err := w.queryDataset(c.Source)
		if err != nil {
			return res, err
		}
		res.Columns, res.Rows = d.columns, d.rows
	case "chart":
		ch := w.findChart(c.Source)
		if ch == nil {
			return res, fmt.Errorf("no chart %q", c.Source)
		}
		out, err := w.renderChart(ch)
		if err != nil {
			return res, err
		}
		res.Output = out
	default:
		res.Output = c.Source
	}
	return res, nil
}
