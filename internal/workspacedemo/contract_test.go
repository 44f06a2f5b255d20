package workspacedemo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/internal/workspacedemo"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/catalogfile"
	"github.com/quiver-go/quiver/tools/contract"
)

// sample is a valid call of one tool, after the calls that set up the
// state it needs (an open table, an export).
type sample struct {
	setup   [][2]string // tool, payload
	payload string
}

// samples holds one valid call per tool of the catalog. A tool the catalog
// gains without a sample here fails TestEveryCatalogToolRunsAndMatchesItsContract.
func samples() map[string]sample {
	openOrders := [][2]string{{"openTable", `{"table":"sales.orders"}`}}
	return map[string]sample{
		"listTables":           {payload: `{"schema":"sales","limit":2}`},
		"openTable":            {payload: `{"table":"sales.orders","focusColumn":"status","rowKey":"7"}`},
		"proposeOpenTable":     {payload: `{"table":"orders","reason":"See the late orders"}`},
		"describeTable":        {payload: `{"table":"sales.customers","includeComments":true}`},
		"previewRows":          {payload: `{"table":"sales.orders","filter":"status = 'late'","orderBy":["total desc"],"limit":5}`},
		"countRows":            {payload: `{"table":"sales.orders","filter":"total > 100","groupBy":"status"}`},
		"importFile":           {payload: `{"fileId":"upload-1","table":"sales.customers","mode":"append","hasHeader":true}`},
		"searchWorkspace":      {payload: `{"text":"late orders","kinds":["table","view"]}`},
		"runQuery":             {payload: `{"sql":"SELECT id, status, total FROM sales.orders WHERE status = 'late' ORDER BY total DESC","maxRows":3}`},
		"explainQuery":         {payload: `{"sql":"SELECT count(*) FROM sales.orders WHERE status = 'late'","analyze":true}`},
		"findColumns":          {payload: `{"text":"customer email"}`},
		"getColumnStats":       {payload: `{"table":"sales.orders","column":"total"}`},
		"getIndexStats":        {payload: `{"table":"sales.orders","includeUnused":true}`},
		"listRelations":        {payload: `{"table":"sales.orders"}`},
		"applyFilter":          {setup: openOrders, payload: `{"conditions":[{"column":"status","operator":"eq","value":"late"}]}`},
		"proposeApplyFilter":   {setup: openOrders, payload: `{"conditions":[{"column":"total","operator":"gt","value":100}],"label":"Only big orders"}`},
		"clearFilters":         {setup: openOrders, payload: `{"columns":["status"]}`},
		"sortView":             {setup: openOrders, payload: `{"keys":[{"column":"created_at","direction":"desc"}]}`},
		"saveView":             {setup: openOrders, payload: `{"name":"All orders","shared":true}`},
		"listSavedViews":       {payload: `{"owner":"me"}`},
		"openSavedView":        {payload: `{"view":"Late orders"}`},
		"proposeOpenSavedView": {payload: `{"view":"sv-3","reason":"Check low stock"}`},
		"deleteSavedView":      {payload: `{"view":"sv-3"}`},
		"startExport":          {payload: `{"table":"sales.orders","format":"csv","includeHeader":true,"compression":"gzip"}`},
		"proposeStartExport":   {payload: `{"view":"Late orders","format":"xlsx"}`},
		"getExportStatus":      {setup: [][2]string{{"startExport", `{"view":"sv-1","format":"jsonl"}`}}, payload: `{"exportId":"export-1"}`},
		"cancelExport":         {setup: [][2]string{{"startExport", `{"sql":"SELECT * FROM hr.employees","format":"parquet"}`}}, payload: `{"exportId":"export-1"}`},
		"createChart":          {payload: `{"source":"sales.orders","type":"line","x":"created_at","y":["total"],"aggregate":"sum","title":"Revenue"}`},
		"listCharts":           {payload: `{"workbook":"wb-1"}`},
		"openWorkbench":        {payload: `{"sql":"SELECT 1","workbook":"Weekly sales review"}`},
		"proposeOpenWorkbench": {payload: `{"sql":"SELECT * FROM sales.orders"}`},
		"createWorkbook":       {payload: `{"title":"Stock","cells":[{"kind":"markdown","source":"# Stock"},{"kind":"sql","source":"SELECT category, sum(stock) AS units FROM inventory.products GROUP BY category"}],"folder":"Ops"}`},
		"runWorkbookCell":      {payload: `{"workbook":"wb-1","cellIndex":1}`},
		"stageRowEdits":        {payload: `{"table":"sales.orders","edits":[{"op":"update","key":{"id":3},"values":{"status":"delivered"}},{"op":"insert","values":{"customer_id":2,"total":99.5}}]}`},
		"stageSchemaChange":    {payload: `{"table":"sales.orders","change":"addColumn","column":"notes","type":"text"}`},
		"listStagedEdits":      {setup: [][2]string{{"stageRowEdits", `{"table":"sales.orders","edits":[{"op":"delete","key":{"id":4}}]}`}}, payload: `{"table":"sales.orders"}`},
		"commitStagedEdits":    {setup: [][2]string{{"stageRowEdits", `{"table":"sales.orders","edits":[{"op":"delete","key":{"id":4}}]}`}}, payload: `{"message":"remove a test order"}`},
		"discardStagedEdits":   {setup: [][2]string{{"stageRowEdits", `{"table":"sales.orders","edits":[{"op":"delete","key":{"id":4}}]}`}}, payload: `{"editIds":["edit-1"]}`},
	}
}

// servedSpecs compiles the declaration the workspace executes and a
// provider publishes, catalogs.WorkspaceToolset(): input and output
// schemas and bounds. By name, and the names in declaration order.
func servedSpecs(t *testing.T) (map[string]tools.ToolSpec, []string) {
	t.Helper()
	decl, err := catalogs.WorkspaceToolset()
	if err != nil {
		t.Fatal(err)
	}
	if decl.Name != workspacedemo.ToolsetName {
		t.Fatalf("the declaration is toolset %q, ToolsetName says %q", decl.Name, workspacedemo.ToolsetName)
	}
	specs, err := contract.CompileToolset(decl)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]tools.ToolSpec{}
	var names []string
	for _, s := range specs {
		out[s.Name.Tool()] = s
		names = append(names, s.Name.Tool())
	}
	return out, names
}

// call runs one tool on w and fails the test on an error.
func call(t *testing.T, w *workspacedemo.Workspace, tool, payload string) json.RawMessage {
	t.Helper()
	out, err := callErr(w, tool, payload)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, payload, err)
	}
	return out
}

// callErr runs one tool on w.
func callErr(w *workspacedemo.Workspace, tool, payload string) (json.RawMessage, error) {
	return execute(context.Background(), w, workspacedemo.ToolsetName, tool, payload)
}

// execute runs one call of toolset.tool on w as a registry provider
// receives it, and returns its result.
func execute(ctx context.Context, w *workspacedemo.Workspace, toolset, tool, payload string) (json.RawMessage, error) {
	call := toolcall.Forwarded(tools.JoinIdent(toolset, tool), tools.ToolSpec{}, json.RawMessage(payload), tools.CallMeta{ToolCallID: "c"})
	res, err := w.Execute(ctx, call)
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// TestEveryCatalogToolRunsAndMatchesItsContract calls every tool of the
// served declaration with a valid payload, on a fresh workspace, and
// checks the result against the tool's declared output schema and bounds.
func TestEveryCatalogToolRunsAndMatchesItsContract(t *testing.T) {
	specs, names := servedSpecs(t)
	all := samples()
	for _, name := range names {
		spec := specs[name]
		t.Run(name, func(t *testing.T) {
			s, ok := all[name]
			if !ok {
				t.Fatalf("no sample call of %s: the toolset has a tool this test (and maybe the workspace) does not know", name)
			}
			if err := spec.Payload.Validate([]byte(s.payload)); err != nil {
				t.Fatalf("the sample payload breaks the declared input schema:\n%v", err)
			}
			w := workspacedemo.New()
			for _, step := range s.setup {
				call(t, w, step[0], step[1])
			}
			out := call(t, w, name, s.payload)
			if err := spec.Result.Validate(out); err != nil {
				t.Fatalf("the result breaks the declared output schema:\n%v\nresult: %s", err, out)
			}
			checkBounds(t, spec, out)
		})
	}
	if len(names) != len(all) {
		t.Errorf("%d tools, %d samples: remove the samples of tools the toolset dropped", len(names), len(all))
	}
}

// checkBounds checks the canonical bounds fields: present, with the
// right types, in the result of a bounded tool; absent otherwise.
func checkBounds(t *testing.T, spec tools.ToolSpec, out json.RawMessage) {
	t.Helper()
	var fields map[string]any
	if err := json.Unmarshal(out, &fields); err != nil {
		t.Fatalf("the result is not an object: %s", out)
	}
	if spec.Bounds == nil {
		for _, f := range []string{tools.BoundsFieldReturned, tools.BoundsFieldTruncated, tools.BoundsFieldTotal, tools.BoundsFieldNextCursor} {
			if _, ok := fields[f]; ok {
				t.Errorf("an unbounded tool wrote the bounds field %q: %s", f, out)
			}
		}
		return
	}
	if *spec.Bounds != (tools.BoundsSpec{}) {
		t.Fatalf("the design now declares paging %+v: implement the cursor in the workspace and test it", *spec.Bounds)
	}
	returned, ok := fields[tools.BoundsFieldReturned].(float64)
	if !ok || returned != float64(int(returned)) {
		t.Errorf("%q is not an integer: %s", tools.BoundsFieldReturned, out)
	}
	truncated, ok := fields[tools.BoundsFieldTruncated].(bool)
	if !ok {
		t.Errorf("%q is not a boolean: %s", tools.BoundsFieldTruncated, out)
	}
	if total, ok := fields[tools.BoundsFieldTotal].(float64); !ok || truncated != (returned < total) {
		t.Errorf("%q is missing or disagrees with %q: %s", tools.BoundsFieldTotal, tools.BoundsFieldTruncated, out)
	}
	if hint, _ := fields[tools.BoundsFieldRefinementHint].(string); truncated != (strings.TrimSpace(hint) != "") {
		t.Errorf("want a %q exactly when truncated: %s", tools.BoundsFieldRefinementHint, out)
	}
	if _, ok := fields[tools.BoundsFieldNextCursor]; ok {
		t.Errorf("no tool declares a cursor, yet the result has %q: %s", tools.BoundsFieldNextCursor, out)
	}
}

// TestTheCatalogFileListsTheServedTools: the MCP rendering of the toolset
// (workspace.json) names exactly the tools the workspace executes, each
// with an output schema.
func TestTheCatalogFileListsTheServedTools(t *testing.T) {
	specs, names := servedSpecs(t)
	c, err := catalogfile.Read(bytes.NewReader(catalogs.Workspace()), catalogs.WorkspaceFile)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tool := range c.Tools {
		listed = append(listed, tool.Ident(workspacedemo.ToolsetName).Tool())
	}
	if !slices.Equal(listed, names) {
		t.Errorf("%s lists %v, the served declaration %v", catalogs.WorkspaceFile, listed, names)
	}
	for _, name := range names {
		if len(specs[name].Result.Schema) == 0 {
			t.Errorf("%s declares no output schema: its results would go unchecked", name)
		}
	}
}
