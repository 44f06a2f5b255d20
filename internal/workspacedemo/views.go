package workspacedemo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The tools of the open view and of saved views (design: views.go).

// gridView is the table open in the user's main grid, with its filters
// (one condition per column at most) and sort.
type gridView struct {
	id    string
	table string
	conds []condition
	sort  []sortKey
}

// sortKey is the SortKey shape of the records design.
type sortKey struct {
	Column    string `json:"column"`
	Direction string `json:"direction,omitempty"`
}

// savedView is a named view of a table.
type savedView struct {
	id, name, description string
	table, owner          string
	shared                bool
	conds                 []condition
	sort                  []sortKey
	lastUsed              time.Time
}

// visible reports whether the current user sees v: their own views and
// shared ones.
func (v *savedView) visible() bool { return v.owner == currentUser || v.shared }

// errNoOpenTable is the failure of the tools of the open view when no
// table is open.
var errNoOpenTable = errors.New("no table is open in the grid: open one with openTable (or openSavedView) first")

// openGrid returns the open view and its table.
func (w *Workspace) openGrid() (*gridView, *table, error) {
	if w.grid == nil {
		return nil, nil, errNoOpenTable
	}
	t, err := w.table(w.grid.table)
	if err != nil {
		return nil, nil, err
	}
	return w.grid, t, nil
}

// shownRows counts the rows of t that conds let through.
func shownRows(t *table, conds []condition) (int64, error) {
	f, err := conditionsFilter(t, conds)
	if err != nil {
		return 0, err
	}
	return int64(len(scan(t, f))), nil
}

type conditionsArgs struct {
	Conditions []condition `json:"conditions"`
	Label      string      `json:"label"`
}

type viewRowsResult struct {
	ViewID    string `json:"viewId"`
	ShownRows int64  `json:"shownRows"`
}

// mergeConditions returns conds with each of add replacing the condition
// on its column, if any.
func mergeConditions(conds, add []condition) []condition {
	out := slices.Clone(conds)
	for _, c := range add {
		if i := slices.IndexFunc(out, func(o condition) bool { return o.Column == c.Column }); i >= 0 {
			out[i] = c
		} else {
			out = append(out, c)
		}
	}
	return out
}

func (w *Workspace) applyFilter(a conditionsArgs) (any, error) {
	g, t, err := w.openGrid()
	if err != nil {
		return nil, err
	}
	conds := mergeConditions(g.conds, a.Conditions)
	n, err := shownRows(t, conds)
	if err != nil {
		return nil, err
	}
	g.conds = conds
	return viewRowsResult{ViewID: g.id, ShownRows: n}, nil
}

func (w *Workspace) proposeApplyFilter(a conditionsArgs) (any, error) {
	_, t, err := w.openGrid()
	if err != nil {
		return nil, err
	}
	f, err := conditionsFilter(t, a.Conditions)
	if err != nil {
		return nil, err
	}
	return w.propose(firstNonEmpty(a.Label, "Filter "+t.name+": "+f.String())), nil
}

type clearFiltersArgs struct {
	Columns []string `json:"columns"`
}

func (w *Workspace) clearFilters(a clearFiltersArgs) (any, error) {
	g, t, err := w.openGrid()
	if err != nil {
		return nil, err
	}
	for _, c := range a.Columns {
		if _, err := t.mustCol(c); err != nil {
			return nil, err
		}
	}
	if len(a.Columns) == 0 {
		g.conds = nil
	} else {
		g.conds = slices.DeleteFunc(g.conds, func(c condition) bool { return slices.Contains(a.Columns, c.Column) })
	}
	n, err := shownRows(t, g.conds)
	if err != nil {
		return nil, err
	}
	return viewRowsResult{ViewID: g.id, ShownRows: n}, nil
}

type sortViewArgs struct {
	Keys []sortKey `json:"keys"`
}

type viewIDResult struct {
	ViewID string `json:"viewId"`
}

func (w *Workspace) sortView(a sortViewArgs) (any, error) {
	g, t, err := w.openGrid()
	if err != nil {
		return nil, err
	}
	keys, err := checkSortKeys(t, a.Keys)
	if err != nil {
		return nil, err
	}
	g.sort = keys
	return viewIDResult{ViewID: g.id}, nil
}

// checkSortKeys checks keys against t's columns and fills the default
// direction.
func checkSortKeys(t *table, keys []sortKey) ([]sortKey, error) {
	out := make([]sortKey, len(keys))
	for i, k := range keys {
		if _, err := t.mustCol(k.Column); err != nil {
			return nil, err
		}
		if k.Direction == "" {
			k.Direction = "asc"
		}
		out[i] = k
	}
	return out, nil
}

// orderKeys converts sort keys on t to order keys.
func orderKeys(t *table, keys []sortKey) []orderKey {
	var out []orderKey
	for _, k := range keys {
		if c := t.col(k.Column); c >= 0 {
			out = append(out, orderKey{name: k.Column, desc: k.Direction == "desc", pos: c})
		}
	}
	return out
}

type saveViewArgs struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Shared      bool   `json:"shared"`
}

type saveViewResult struct {
	View string `json:"view"`
	Name string `json:"name"`
}

func (w *Workspace) saveView(a saveViewArgs) (any, error) {
	g, t, err := w.openGrid()
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(a.Name)
	if name == "" {
		return nil, errors.New("give the view a name")
	}
	for _, v := range w.views {
		if v.table == t.name && strings.EqualFold(v.name, name) {
			return nil, fmt.Errorf("table %s already has a saved view named %q (%s): choose another name", t.name, v.name, v.id)
		}
	}
	v := &savedView{
		id: w.nextID("sv"), name: name, description: a.Description, table: t.name, owner: currentUser,
		shared: a.Shared, conds: slices.Clone(g.conds), sort: slices.Clone(g.sort), lastUsed: w.tick(),
	}
	w.views = append(w.views, v)
	return saveViewResult{View: v.id, Name: v.name}, nil
}

type listSavedViewsArgs struct {
	Table string `json:"table"`
	Owner string `json:"owner"`
}

type savedViewSummary struct {
	View       string `json:"view"`
	Name       string `json:"name"`
	Table      string `json:"table"`
	Owner      string `json:"owner,omitempty"`
	LastUsedAt string `json:"lastUsedAt,omitempty"`
}

type listSavedViewsResult struct {
	Views []savedViewSummary `json:"views"`
}

func (w *Workspace) listSavedViews(a listSavedViewsArgs) (any, error) {
	table := ""
	if a.Table != "" {
		t, err := w.table(a.Table)
		if err != nil {
			return nil, err
		}
		table = t.name
	}
	var views []*savedView
	for _, v := range w.views {
		if v.visible() && (table == "" || v.table == table) && (a.Owner != "me" || v.owner == currentUser) {
			views = append(views, v)
		}
	}
	slices.SortStableFunc(views, func(a, b *savedView) int { return b.lastUsed.Compare(a.lastUsed) })
	res := listSavedViewsResult{Views: []savedViewSummary{}}
	for _, v := range views {
		res.Views = append(res.Views, savedViewSummary{View: v.id, Name: v.name, Table: v.table, Owner: v.owner, LastUsedAt: stamp(v.lastUsed)})
	}
	return res, nil
}

// findView returns the visible saved view of that id or name.
func (w *Workspace) findView(ref string) (*savedView, error) {
	v, err := w.lookupView(ref)
	if err == nil && v == nil {
		err = fmt.Errorf("no saved view %q: listSavedViews lists them", ref)
	}
	return v, err
}

// lookupView returns the visible saved view of that id or name, nil when
// there is none, or an error when the name is ambiguous.
func (w *Workspace) lookupView(ref string) (*savedView, error) {
	var byName []*savedView
	for _, v := range w.views {
		if !v.visible() {
			continue
		}
		if v.id == ref {
			return v, nil
		}
		if strings.EqualFold(v.name, strings.TrimSpace(ref)) {
			byName = append(byName, v)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return nil, nil
	}
	ids := make([]string, len(byName))
	for i, v := range byName {
		ids[i] = v.id + " (" + v.table + ")"
	}
	return nil, fmt.Errorf("several saved views are named %q: give one of their ids, %s", ref, strings.Join(ids, ", "))
}

type viewArgs struct {
	View   string `json:"view"`
	Reason string `json:"reason"`
}

type openSavedViewResult struct {
	View  string `json:"view"`
	Table string `json:"table"`
}

func (w *Workspace) openSavedView(a viewArgs) (any, error) {
	v, err := w.findView(a.View)
	if err != nil {
		return nil, err
	}
	t, err := w.table(v.table)
	if err != nil {
		return nil, fmt.Errorf("saved view %s: %w", v.id, err)
	}
	if _, err := shownRows(t, v.conds); err != nil {
		return nil, fmt.Errorf("saved view %s no longer applies to %s: %w", v.id, t.name, err)
	}
	w.grid = &gridView{id: w.nextID("grid"), table: t.name, conds: slices.Clone(v.conds), sort: slices.Clone(v.sort)}
	v.lastUsed = w.tick()
	return openSavedViewResult{View: v.id, Table: t.name}, nil
}

func (w *Workspace) proposeOpenSavedView(a viewArgs) (any, error) {
	v, err := w.findView(a.View)
	if err != nil {
		return nil, err
	}
	return w.propose(firstNonEmpty(a.Reason, "Open saved view "+v.name)), nil
}

type deleteSavedViewResult struct {
	View    string `json:"view"`
	Deleted bool   `json:"deleted"`
}

func (w *Workspace) deleteSavedView(a viewArgs) (any, error) {
	v, err := w.lookupView(a.View)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return deleteSavedViewResult{View: a.View, Deleted: false}, nil
	}
	if v.owner != currentUser {
		return nil, fmt.Errorf("saved view %s belongs to %s: only its owner can delete it", v.id, v.owner)
	}
	w.views = slices.DeleteFunc(w.views, func(x *savedView) bool { return x == v })
	return deleteSavedViewResult{View: v.id, Deleted: true}, nil
}
