package workspacedemo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/workspacedemo"
)

func TestOpenViewFiltersAndSavedViews(t *testing.T) {
	w := workspacedemo.New()
	if _, err := callErr(w, "applyFilter", `{"conditions":[{"column":"status","operator":"eq","value":"late"}]}`); err == nil || !strings.Contains(err.Error(), "openTable") {
		t.Errorf("filtering with no open table: %v", err)
	}
	call(t, w, "openTable", `{"table":"sales.orders"}`)
	shown := func(tool, payload string) any {
		return decode(t, call(t, w, tool, payload))["shownRows"]
	}
	if n := shown("applyFilter", `{"conditions":[{"column":"status","operator":"eq","value":"late"}]}`); n != 12.0 {
		t.Errorf("status eq late shows %v", n)
	}
	if n := shown("applyFilter", `{"conditions":[{"column":"total","operator":"gt","value":100}]}`); n != 10.0 {
		t.Errorf("and total gt 100 shows %v", n)
	}
	if n := shown("applyFilter", `{"conditions":[{"column":"status","operator":"in","value":["late","cancelled"]}]}`); n != 16.0 {
		t.Errorf("replacing the status condition shows %v", n)
	}
	if n := shown("clearFilters", `{"columns":["total"]}`); n != 18.0 {
		t.Errorf("clearing total shows %v", n)
	}
	call(t, w, "sortView", `{"keys":[{"column":"total","direction":"desc"}]}`)
	saved := decode(t, call(t, w, "saveView", `{"name":"Late or cancelled","description":"Trouble orders"}`))
	if saved["view"] != "sv-5" {
		t.Fatalf("saveView: %v", saved)
	}
	if _, err := callErr(w, "saveView", `{"name":"late or cancelled"}`); err == nil || !strings.Contains(err.Error(), "already has a saved view") {
		t.Errorf("a second view of the same name: %v", err)
	}
	views := decode(t, call(t, w, "listSavedViews", `{"table":"sales.orders"}`))["views"].([]any)
	if got := fmt.Sprint(views); !strings.HasPrefix(got, "[map[lastUsedAt:2025-06-02T09:00:01Z name:Late or cancelled") || strings.Contains(got, "sv-4") {
		t.Errorf("views of sales.orders, most recently used first, without sam's private one: %s", got)
	}
	if mine := decode(t, call(t, w, "listSavedViews", `{"owner":"me"}`))["views"].([]any); len(mine) != 3 {
		t.Errorf("my views: %v", mine)
	}

	res := decode(t, call(t, w, "openSavedView", `{"view":"Low stock"}`))
	if res["table"] != "inventory.products" || shown("clearFilters", `{"columns":["name"]}`) != 3.0 {
		t.Errorf("openSavedView: %v", res)
	}
	call(t, w, "startExport", `{"view":"sv-5","format":"csv"}`)
	call(t, w, "getExportStatus", `{"exportId":"export-1"}`)
	if st := decode(t, call(t, w, "getExportStatus", `{"exportId":"export-1"}`)); st["rows"] != 18.0 {
		t.Errorf("export of the saved view: %v", st)
	}
	if res := decode(t, call(t, w, "deleteSavedView", `{"view":"sv-5"}`)); res["deleted"] != true {
		t.Errorf("delete: %v", res)
	}
	if res := decode(t, call(t, w, "deleteSavedView", `{"view":"sv-5"}`)); res["deleted"] != false {
		t.Errorf("delete again: %v", res)
	}
	if _, err := callErr(w, "deleteSavedView", `{"view":"Enterprise customers"}`); err == nil || !strings.Contains(err.Error(), "only its owner") {
		t.Errorf("deleting ana's view: %v", err)
	}
	if _, err := callErr(w, "openSavedView", `{"view":"sv-4"}`); err == nil || !strings.Contains(err.Error(), "listSavedViews") {
		t.Errorf("opening sam's private view: %v", err)
	}
}

func TestChartsAndWorkbooks(t *testing.T) {
	w := workspacedemo.New()
	res := decode(t, call(t, w, "runWorkbookCell", `{"workbook":"Weekly sales review","runAll":true}`))
	out, _ := res["output"].(string)
	if res["cellIndex"] != 2.0 || !strings.Contains(out, "late: 12") || !strings.Contains(out, "delivered: 18") {
		t.Errorf("running wb-1: %v", res)
	}
	chart := decode(t, call(t, w, "createChart", `{"source":"SELECT category, sum(stock) AS units FROM inventory.products GROUP BY category","type":"bar","x":"category","y":["units"]}`))
	wb := decode(t, call(t, w, "createWorkbook", fmt.Sprintf(`{"title":"Stock","cells":[{"kind":"chart","source":%q}]}`, chart["chartId"])))
	res = decode(t, call(t, w, "runWorkbookCell", fmt.Sprintf(`{"workbook":%q,"cellIndex":0}`, wb["workbook"])))
	if out, _ := res["output"].(string); !strings.Contains(out, "sum of units by category (4 points)") {
		t.Errorf("the new chart: %v", res)
	}
	charts := decode(t, call(t, w, "listCharts", `{"source":"products"}`))["charts"].([]any)
	if len(charts) != 1 || charts[0].(map[string]any)["chartId"] != "chart-3" {
		t.Errorf("charts of inventory.products: %v", charts)
	}
	matches := decode(t, call(t, w, "searchWorkspace", `{"text":"weekly sales"}`))["matches"].([]any)
	if len(matches) == 0 || matches[0].(map[string]any)["id"] != "wb-1" {
		t.Errorf("search for the workbook: %v", matches)
	}
	for tool, payload := range map[string]string{
		"createChart":     `{"source":"sales.orders","type":"bar","x":"status","y":["status"]}`,
		"runWorkbookCell": `{"workbook":"wb-1","cellIndex":7}`,
		"createWorkbook":  `{"title":"x","cells":[{"kind":"sql","source":"UPDATE sales.orders SET status = 'late'"}]}`,
		"openWorkbench":   `{"workbook":"Monthly"}`,
	} {
		if _, err := callErr(w, tool, payload); err == nil {
			t.Errorf("%s %s succeeded", tool, payload)
		}
	}
}

func TestErrorsTeachTheFix(t *testing.T) {
	w := workspacedemo.New()
	for _, tc := range []struct{ tool, payload, want string }{
		{"countRows", `{"table":"sales.order"}`, "the tables are hr.employees, inventory.products"},
		{"countRows", `{"table":"sales.orders","filter":"status = 'late' or status = 'cancelled'"}`, "use IN ('a', 'b')"},
		{"countRows", `{"table":"sales.orders","filter":"status = 5"}`, "quote the value"},
		{"countRows", `{"table":"sales.orders","filter":"state = 'late'"}`, "its columns are id, customer_id, status"},
		{"countRows", `{"table":"sales.orders","filter":"status ~ 'late'"}`, "The workspace filter syntax"},
		{"previewRows", `{"table":"sales.orders","limit":0}`, "limit"},
		{"previewRows", `{"table":"sales.orders","orderBy":["total sideways"]}`, "asc or desc"},
		{"describeTable", `{"table":"sales.orders","extra":true}`, "extra"},
		{"getExportStatus", `{"exportId":"nope"}`, "startExport returned"},
		{"applyFilter", `{"conditions":[]}`, "openTable"},
		{"listTables", `{"schema":"finance"}`, "the schemas are hr, inventory, sales"},
		{"getColumnStats", `{"table":"orders","column":"colour"}`, "no column"},
		{"deleteTable", `{}`, "its tools are listTables"},
	} {
		_, err := callErr(w, tc.tool, tc.payload)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v, want one containing %q", tc.tool, tc.payload, err, tc.want)
		}
	}
	if _, err := execute(context.Background(), w, "docs", "countRows", `{"table":"sales.orders"}`); err == nil {
		t.Error("a call of another toolset ran")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := execute(ctx, w, workspacedemo.ToolsetName, "listTables", ""); err == nil {
		t.Error("a call with a cancelled context ran")
	}
}

func TestIndexScansAndExplain(t *testing.T) {
	w := workspacedemo.New()
	scans := func() float64 {
		for _, ix := range decode(t, call(t, w, "getIndexStats", `{"table":"sales.orders"}`))["indexes"].([]any) {
			if ix := ix.(map[string]any); ix["name"] == "orders_status_idx" {
				return ix["scans"].(float64)
			}
		}
		t.Fatal("no orders_status_idx")
		return 0
	}
	before := scans()
	count(t, w, "sales.orders", "status = 'late'")
	if after := scans(); after != before+1 {
		t.Errorf("scans %v after a read by status, want %v", after, before+1)
	}
	plan := decode(t, call(t, w, "explainQuery", `{"sql":"SELECT id FROM sales.orders WHERE total > 400 ORDER BY total DESC LIMIT 3"}`))
	if plan["sequentialScans"] == nil || !strings.Contains(plan["plan"].(string), "Seq Scan on sales.orders (filter: total > 400)") {
		t.Errorf("a plan without a usable index: %v", plan)
	}
	if idx := decode(t, call(t, w, "getIndexStats", `{"table":"inventory.products"}`))["indexes"].([]any); len(idx) != 2 {
		t.Errorf("unused indexes are listed without includeUnused: %v", idx)
	}
}
