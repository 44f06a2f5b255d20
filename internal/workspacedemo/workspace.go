package workspacedemo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// ToolsetName is the name of the toolset a Workspace executes: the name
// of catalogs.WorkspaceToolset().
const ToolsetName = "workspace"

// currentUser is the workspace's user: the owner listSavedViews means by
// "me", and the owner of what the tools create.
const currentUser = "demo"

// Workspace is an in-memory data workspace that executes every tool of
// the records example's workspace toolset. It is safe for concurrent use:
// each call runs alone under one lock.
type Workspace struct {
	specs map[string]tools.ToolSpec // by bare tool name; immutable
	names []string                  // tool names, in declaration order

	mu        sync.Mutex
	clock     time.Time // logical clock: one second a change
	seq       map[string]int
	tables    map[string]*table
	fks       []foreignKey
	uploads   map[string]upload
	grid      *gridView
	benches   []workbenchTab
	views     []*savedView
	charts    []*chart
	workbooks []*workbook
	exports   []*export
	staged    []*stagedEdit
	history   []commitRecord
	proposals int
}

// New returns a workspace holding the seed data described in the package
// documentation, executing the tools of catalogs.WorkspaceToolset(), the
// declaration a provider registers next to it. It panics if that embedded
// declaration does not compile, which the tests rule out.
func New() *Workspace {
	decl, err := catalogs.WorkspaceToolset()
	if err != nil {
		panic(fmt.Errorf("workspacedemo: %w", err))
	}
	if decl.Name != ToolsetName {
		panic(fmt.Errorf("workspacedemo: the embedded declaration is toolset %q, not %q", decl.Name, ToolsetName))
	}
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		panic(fmt.Errorf("workspacedemo: the embedded declaration does not compile: %w", err))
	}
	w := &Workspace{specs: map[string]tools.ToolSpec{}}
	for _, s := range specs {
		name := s.Name.Tool()
		w.specs[name] = s
		w.names = append(w.names, name)
	}
	w.seed()
	return w
}

// Execute runs one call of the workspace toolset against the workspace's
// data and returns the tool's result: a toolcall.Executor, so the same
// value serves in process, over MCP and through registry.Serve. The
// payload is validated against the tool's declared input schema first; an
// error (invalid arguments, unknown table, bad filter, unknown id) is the
// tool's failure, its message written for the model that made the call.
// Confirmation-gated tools run when called: gating is the caller's job.
func (w *Workspace) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	toolset, tool := call.Ident.Toolset(), call.Ident.Tool()
	if toolset != ToolsetName {
		return nil, fmt.Errorf("workspacedemo: toolset %q: this executor runs the %q toolset only", toolset, ToolsetName)
	}
	spec, ok := w.specs[tool]
	if !ok {
		return nil, fmt.Errorf("the workspace has no tool %q; its tools are %s", tool, strings.Join(w.names, ", "))
	}
	payload, err := call.InjectedPayload()
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(payload)) == 0 {
		payload = json.RawMessage(`{}`)
	}
	if err := spec.Payload.Validate(payload); err != nil {
		return nil, fmt.Errorf("%s: invalid arguments; fix them and call again:\n%w", tool, err)
	}
	run := w.handler(tool)
	if run == nil {
		return nil, fmt.Errorf("%s is declared by the workspace toolset but the demo workspace does not implement it", tool)
	}
	w.mu.Lock()
	res, err := run(payload)
	w.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	out, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("workspacedemo: %s: encoding the result: %w", tool, err)
	}
	return &toolcall.Result{Result: out}, nil
}

// handler returns the function running tool, or nil.
func (w *Workspace) handler(tool string) func(json.RawMessage) (any, error) {
	switch tool {
	case "listTables":
		return handle(w.listTables)
	case "openTable":
		return handle(w.openTable)
	case "proposeOpenTable":
		return handle(w.proposeOpenTable)
	case "describeTable":
		return handle(w.describeTable)
	case "previewRows":
		return handle(w.previewRows)
	case "countRows":
		return handle(w.countRows)
	case "importFile":
		return handle(w.importFile)
	case "searchWorkspace":
		return handle(w.searchWorkspace)
	case "runQuery":
		return handle(w.runQuery)
	case "explainQuery":
		return handle(w.explainQuery)
	case "findColumns":
		return handle(w.findColumns)
	case "getColumnStats":
		return handle(w.getColumnStats)
	case "getIndexStats":
		return handle(w.getIndexStats)
	case "listRelations":
		return handle(w.listRelations)
	case "applyFilter":
		return handle(w.applyFilter)
	case "proposeApplyFilter":
		return handle(w.proposeApplyFilter)
	case "clearFilters":
		return handle(w.clearFilters)
	case "sortView":
		return handle(w.sortView)
	case "saveView":
		return handle(w.saveView)
	case "listSavedViews":
		return handle(w.listSavedViews)
	case "openSavedView":
		return handle(w.openSavedView)
	case "proposeOpenSavedView":
		return handle(w.proposeOpenSavedView)
	case "deleteSavedView":
		return handle(w.deleteSavedView)
	case "startExport":
		return handle(w.startExport)
	case "proposeStartExport":
		return handle(w.proposeStartExport)
	case "getExportStatus":
		return handle(w.getExportStatus)
	case "cancelExport":
		return handle(w.cancelExport)
	case "createChart":
		return handle(w.createChart)
	case "listCharts":
		return handle(w.listCharts)
	case "openWorkbench":
		return handle(w.openWorkbench)
	case "proposeOpenWorkbench":
		return handle(w.proposeOpenWorkbench)
	case "createWorkbook":
		return handle(w.createWorkbook)
	case "runWorkbookCell":
		return handle(w.runWorkbookCell)
	case "stageRowEdits":
		return handle(w.stageRowEdits)
	case "stageSchemaChange":
		return handle(w.stageSchemaChange)
	case "listStagedEdits":
		return handle(w.listStagedEdits)
	case "commitStagedEdits":
		return handle(w.commitStagedEdits)
	case "discardStagedEdits":
		return handle(w.discardStagedEdits)
	}
	return nil
}

// handle adapts a handler of typed arguments: the payload is decoded into
// A, numbers inside untyped values as json.Number, unknown fields refused.
func handle[A any](f func(A) (any, error)) func(json.RawMessage) (any, error) {
	return func(raw json.RawMessage) (any, error) {
		var a A
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return nil, fmt.Errorf("invalid arguments: %w", err)
		}
		return f(a)
	}
}

// table returns the named table: schema-qualified, or bare when one
// schema has it; case is ignored.
func (w *Workspace) table(name string) (*table, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if t, ok := w.tables[n]; ok {
		return t, nil
	}
	var found []*table
	if !strings.Contains(n, ".") {
		for _, t := range w.tables {
			if strings.HasSuffix(t.name, "."+n) {
				found = append(found, t)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("no table %q; the tables are %s (listTables lists them)", name, strings.Join(w.tableNames(), ", "))
	}
	names := make([]string, len(found))
	for i, t := range found {
		names[i] = t.name
	}
	slices.Sort(names)
	return nil, fmt.Errorf("table name %q is ambiguous: qualify it with its schema, one of %s", name, strings.Join(names, ", "))
}

// tableNames returns the tables' names, sorted.
func (w *Workspace) tableNames() []string {
	out := make([]string, 0, len(w.tables))
	for n := range w.tables {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// nextID returns the next id of a kind: "<prefix>-<n>".
func (w *Workspace) nextID(prefix string) string {
	w.seq[prefix]++
	return fmt.Sprintf("%s-%d", prefix, w.seq[prefix])
}

// tick advances the logical clock by one second and returns it.
func (w *Workspace) tick() time.Time {
	w.clock = w.clock.Add(time.Second)
	return w.clock
}

// stamp formats a time as the results show it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// proposal is the result of every proposeX tool: a chip the user clicks.
type proposal struct {
	ProposalID string `json:"proposalId"`
	Label      string `json:"label"`
	Status     string `json:"status"`
}

// propose returns a new proposal; nothing else changes.
func (w *Workspace) propose(label string) proposal {
	w.proposals++
	return proposal{ProposalID: fmt.Sprintf("proposal-%d", w.proposals), Label: label, Status: "proposed"}
}

// firstNonEmpty returns the first of ss that is not blank.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
