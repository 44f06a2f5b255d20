package workspacedemo_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/workspacedemo"
)

// decode unmarshals a result into a map.
func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	return m
}

// count runs countRows and returns the count.
func count(t *testing.T, w *workspacedemo.Workspace, table, filter string) int {
	t.Helper()
	p, _ := json.Marshal(map[string]string{"table": table, "filter": filter})
	return int(decode(t, call(t, w, "countRows", string(p)))["count"].(float64))
}

func TestCountRowsWithFilters(t *testing.T) {
	w := workspacedemo.New()
	for _, tc := range []struct {
		table, filter string
		want          int
	}{
		{"sales.orders", "", 60},
		{"sales.orders", "status = 'late'", 12},
		{"orders", "status = 'late' and total > 100", 10},
		{"sales.orders", "status IN ('late', 'cancelled')", 18},
		{"sales.orders", "status != 'late' AND status <> 'cancelled'", 42},
		{"sales.orders", "shipped_at IS NULL", 18},
		{"sales.orders", "created_at >= '2025-04-01' and created_at < '2025-05-01'", 27},
		{"sales.customers", "email is not null and name like 'S%'", 1},
		{"inventory.products", "stock < 10", 3},
		{"inventory.products", "discontinued = true", 2},
	} {
		if got := count(t, w, tc.table, tc.filter); got != tc.want {
			t.Errorf("countRows %s where %q = %d, want %d", tc.table, tc.filter, got, tc.want)
		}
	}
	groups := decode(t, call(t, w, "countRows", `{"table":"sales.orders","groupBy":"status"}`))["groups"]
	want := map[string]any{"late": 12.0, "cancelled": 6.0, "delivered": 18.0, "shipped": 12.0, "pending": 12.0}
	if !reflect.DeepEqual(groups, want) {
		t.Errorf("groups %v, want %v", groups, want)
	}
}

// nextFilter extracts the next page's filter from a refinement hint.
var nextFilter = regexp.MustCompile(`with filter "([^"]+)"`)

// TestPreviewRowsPagesToTheEnd pages through a bounded listing by
// following each page's refinement hint until it is no longer truncated.
func TestPreviewRowsPagesToTheEnd(t *testing.T) {
	for _, tc := range []struct {
		filter string
		limit  int
		want   []int
	}{
		{"", 25, seq(1, 60, func(int) bool { return true })},
		{"status = 'late'", 5, seq(1, 60, func(i int) bool { return i%10 == 3 || i%10 == 7 })},
	} {
		w := workspacedemo.New()
		filter, pages := tc.filter, 0
		var got []int
		for {
			pages++
			if pages > 20 {
				t.Fatal("paging does not end")
			}
			p, _ := json.Marshal(map[string]any{"table": "sales.orders", "filter": filter, "limit": tc.limit})
			res := decode(t, call(t, w, "previewRows", string(p)))
			rows := res["rows"].([]any)
			if int(res["returned"].(float64)) != len(rows) {
				t.Fatalf("returned %v for %d rows", res["returned"], len(rows))
			}
			for _, r := range rows {
				got = append(got, int(r.([]any)[0].(float64)))
			}
			if !res["truncated"].(bool) {
				break
			}
			m := nextFilter.FindStringSubmatch(res["refinement_hint"].(string))
			if m == nil {
				t.Fatalf("a truncated page's hint gives no next filter: %q", res["refinement_hint"])
			}
			filter = m[1]
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("filter %q: paged ids %v, want %v", tc.filter, got, tc.want)
		}
		if wantPages := (len(tc.want) + tc.limit - 1) / tc.limit; pages != wantPages {
			t.Errorf("filter %q: %d pages, want %d", tc.filter, pages, wantPages)
		}
	}
}

// seq returns the integers from lo to hi that keep accepts.
func seq(lo, hi int, keep func(int) bool) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}

func TestListTablesBounds(t *testing.T) {
	w := workspacedemo.New()
	res := decode(t, call(t, w, "listTables", `{"limit":2}`))
	if res["returned"] != 2.0 || res["truncated"] != true || res["total"] != 6.0 || res["refinement_hint"] == nil {
		t.Errorf("limit 2: %v", res)
	}
	res = decode(t, call(t, w, "listTables", `{"nameContains":"ORDER"}`))
	if res["returned"] != 2.0 || res["truncated"] != false || res["refinement_hint"] != nil {
		t.Errorf("nameContains: %v", res)
	}
}

func TestRunQuery(t *testing.T) {
	w := workspacedemo.New()
	res := decode(t, call(t, w, "runQuery", `{"sql":"select status, count(*) as n, max(total) as top from sales.orders where total > 100 group by status order by n desc limit 2;"}`))
	if got := fmt.Sprint(res["columns"], res["rows"]); got != "[status n top] [[delivered 14 402.25] [late 10 416.75]]" {
		t.Errorf("grouped query: %s", got)
	}
	res = decode(t, call(t, w, "runQuery", `{"sql":"SELECT avg(salary) AS avg, min(hired_on), count(manager_id) FROM hr.employees"}`))
	if got := fmt.Sprint(res["rows"]); got != "[[78125 2019-07-07 9]]" {
		t.Errorf("aggregates: %s", got)
	}
	res = decode(t, call(t, w, "runQuery", `{"sql":"SELECT * FROM sales.order_items","maxRows":100}`))
	if res["returned"] != 100.0 || res["total"] != 120.0 || res["truncated"] != true {
		t.Errorf("maxRows: returned %v of %v", res["returned"], res["total"])
	}
	for sql, want := range map[string]string{
		"DELETE FROM sales.orders":                                  "stageRowEdits",
		"SELECT * FROM sales.orders o JOIN sales.customers c ON 1":  "listRelations",
		"SELECT name FROM sales.customers WHERE tier = 'a' OR 1":    "IN (",
		"SELECT status, total FROM sales.orders GROUP BY status":    "GROUP BY column or inside an aggregate",
		"SELECT nope FROM sales.orders":                             "columns are id, customer_id",
		"SELECT * FROM sales.invoices":                              "listTables",
		"SELECT sum(status) FROM sales.orders":                      "not a number",
		"SELECT id FROM sales.orders WHERE total > 'big'":           "compare it with a number",
		"WITH x AS (SELECT 1) SELECT * FROM x":                      "one-table SELECTs",
		"SELECT id FROM sales.orders ORDER BY id LIMIT -1":          "row count after LIMIT",
		"SELECT id FROM sales.orders WHERE (status = 'late')":       "parentheses",
		"SELECT count(*) FROM sales.orders WHERE status = late":     "quote text values",
		"SELECT count(*) FROM sales.orders WHERE shipped_at = NULL": "IS NULL",
	} {
		_, err := callErr(w, "runQuery", fmt.Sprintf(`{"sql":%q}`, sql))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one mentioning %q", sql, err, want)
		}
	}
}

func TestExportLifecycle(t *testing.T) {
	w := workspacedemo.New()
	res := decode(t, call(t, w, "startExport", `{"table":"sales.orders","format":"csv","compression":"gzip"}`))
	if res["exportId"] != "export-1" || res["status"] != "queued" {
		t.Fatalf("startExport: %v", res)
	}
	var states []string
	for range 3 {
		st := decode(t, call(t, w, "getExportStatus", `{"exportId":"export-1"}`))
		states = append(states, fmt.Sprint(st["status"], " ", st["progress"], " ", st["rows"], " ", st["downloadUrl"]))
	}
	want := []string{"running 0.5 30 <nil>", "done 1 60 https://downloads.example.com/exports/export-1.csv.gz", "done 1 60 https://downloads.example.com/exports/export-1.csv.gz"}
	if !slices.Equal(states, want) {
		t.Errorf("status reads %q, want %q", states, want)
	}
	if res := decode(t, call(t, w, "cancelExport", `{"exportId":"export-1"}`)); res["cancelled"] != false {
		t.Errorf("cancelling a finished export: %v", res)
	}

	call(t, w, "startExport", `{"view":"Late orders","format":"jsonl"}`)
	if res := decode(t, call(t, w, "cancelExport", `{"exportId":"export-2"}`)); res["cancelled"] != true {
		t.Errorf("cancelling a queued export: %v", res)
	}
	if st := decode(t, call(t, w, "getExportStatus", `{"exportId":"export-2"}`)); st["status"] != "cancelled" {
		t.Errorf("after cancel: %v", st)
	}
	call(t, w, "startExport", `{"sql":"SELECT * FROM sales.orders WHERE status = 'late' AND total > 100","format":"parquet"}`)
	call(t, w, "getExportStatus", `{"exportId":"export-3"}`)
	if st := decode(t, call(t, w, "getExportStatus", `{"exportId":"export-3"}`)); st["rows"] != 10.0 {
		t.Errorf("query export rows: %v", st)
	}

	for payload, want := range map[string]string{
		`{"exportId":"export-9"}`: "startExport returned",
	} {
		if _, err := callErr(w, "getExportStatus", payload); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("getExportStatus %s: %v", payload, err)
		}
	}
	for payload, want := range map[string]string{
		`{"table":"sales.orders","view":"sv-1","format":"csv"}`: "exactly one of table, view or sql",
		`{"format":"csv"}`: "exactly one of table, view or sql",
		`{"table":"sales.orders","format":"parquet","includeHeader":true}`: "includeHeader applies to csv and xlsx",
		`{"view":"sv-4","format":"csv"}`:                                   "no saved view",
	} {
		if _, err := callErr(w, "startExport", payload); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("startExport %s: %v, want %q", payload, err, want)
		}
	}
}
