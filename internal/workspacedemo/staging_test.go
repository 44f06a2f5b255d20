package workspacedemo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/workspacedemo"
)

// editIDs returns the ids of the edits of a stageRowEdits or
// listStagedEdits result.
func editIDs(res map[string]any) []string {
	var ids []string
	for _, e := range res["edits"].([]any) {
		ids = append(ids, e.(map[string]any)["editId"].(string))
	}
	return ids
}

func TestStageListCommitRowEdits(t *testing.T) {
	w := workspacedemo.New()
	staged := decode(t, call(t, w, "stageRowEdits", `{"table":"sales.orders","edits":[
		{"op":"insert","values":{"customer_id":3,"status":"late","total":150}},
		{"op":"update","key":{"id":61},"values":{"total":175.5}},
		{"op":"update","key":{"id":1},"values":{"status":"late"}},
		{"op":"delete","key":{"id":2}}]}`))
	if ids := editIDs(staged); !slices.Equal(ids, []string{"edit-1", "edit-2", "edit-3", "edit-4"}) {
		t.Fatalf("staged %v", ids)
	}
	second := staged["edits"].([]any)[1].(map[string]any)
	if second["before"].(map[string]any)["total"] != 150.0 || second["after"].(map[string]any)["total"] != 175.5 {
		t.Errorf("an update of a staged insert: %v", second)
	}
	call(t, w, "stageSchemaChange", `{"table":"hr.employees","change":"renameColumn","column":"salary","newName":"base_salary"}`)

	listed := decode(t, call(t, w, "listStagedEdits", `{}`))
	if ids := editIDs(listed); !slices.Equal(ids, []string{"edit-5", "edit-1", "edit-2", "edit-3", "edit-4"}) {
		t.Errorf("listed %v: want per table, oldest first", ids)
	}
	if ids := editIDs(decode(t, call(t, w, "listStagedEdits", `{"table":"orders"}`))); len(ids) != 4 {
		t.Errorf("orders' edits %v", ids)
	}
	if n := count(t, w, "sales.orders", "status = 'late'"); n != 12 {
		t.Fatalf("staged edits changed the data before commit: %d late orders", n)
	}

	res := decode(t, call(t, w, "commitStagedEdits", `{"table":"sales.orders","message":"fix orders"}`))
	if res["committed"] != 4.0 || fmt.Sprint(res["tables"]) != "[sales.orders]" {
		t.Fatalf("commit: %v", res)
	}
	if n := count(t, w, "sales.orders", ""); n != 60 {
		t.Errorf("%d orders after one insert and one delete, want 60", n)
	}
	if n := count(t, w, "sales.orders", "status = 'late'"); n != 14 {
		t.Errorf("%d late orders after the commit, want 14", n)
	}
	if n := count(t, w, "sales.orders", "id = 61 and total = 175.5"); n != 1 {
		t.Errorf("the inserted order was not updated")
	}
	if ids := editIDs(decode(t, call(t, w, "listStagedEdits", `{}`))); !slices.Equal(ids, []string{"edit-5"}) {
		t.Errorf("after committing orders' edits, staged %v", ids)
	}
	res = decode(t, call(t, w, "commitStagedEdits", `{}`))
	if res["committed"] != 1.0 || fmt.Sprint(res["tables"]) != "[hr.employees]" {
		t.Errorf("commit: %v", res)
	}
	if _, err := callErr(w, "countRows", `{"table":"hr.employees","filter":"salary > 0"}`); err == nil || !strings.Contains(err.Error(), "base_salary") {
		t.Errorf("the renamed column: %v", err)
	}
	if res := decode(t, call(t, w, "commitStagedEdits", `{}`)); res["committed"] != 0.0 {
		t.Errorf("an empty commit: %v", res)
	}
}

// TestCommitFailsAsAWhole: an edit that no longer fits the data fails
// the commit, and nothing is written.
func TestCommitFailsAsAWhole(t *testing.T) {
	w := workspacedemo.New()
	call(t, w, "stageRowEdits", `{"table":"sales.orders","edits":[{"op":"update","key":{"id":5},"values":{"status":"late"}}]}`)
	call(t, w, "stageRowEdits", `{"table":"sales.orders","edits":[{"op":"delete","key":{"id":5}}]}`)
	call(t, w, "stageRowEdits", `{"table":"sales.customers","edits":[{"op":"update","key":{"id":1},"values":{"tier":"plus"}}]}`)
	if res := decode(t, call(t, w, "discardStagedEdits", `{"editIds":["edit-1"]}`)); res["discarded"] != 1.0 {
		t.Fatalf("discard: %v", res)
	}
	_, err := callErr(w, "commitStagedEdits", `{}`)
	if err == nil || !strings.Contains(err.Error(), "nothing was written") || !strings.Contains(err.Error(), "edit-2") {
		t.Fatalf("commit of a delete whose row changed: %v", err)
	}
	if count(t, w, "sales.orders", "") != 60 || count(t, w, "sales.customers", "tier = 'plus'") != 4 {
		t.Error("a failed commit wrote something")
	}
	if res := decode(t, call(t, w, "discardStagedEdits", `{"table":"sales.orders"}`)); res["discarded"] != 1.0 {
		t.Errorf("discard by table: %v", res)
	}
	if res := decode(t, call(t, w, "commitStagedEdits", `{}`)); res["committed"] != 1.0 || count(t, w, "sales.customers", "tier = 'plus'") != 5 {
		t.Errorf("commit after discarding the conflict: %v", res)
	}
	if _, err := callErr(w, "discardStagedEdits", `{"editIds":["edit-9"]}`); err == nil || !strings.Contains(err.Error(), "listStagedEdits") {
		t.Errorf("discarding an unknown edit: %v", err)
	}
}

func TestStageRowEditsRefusesBadEdits(t *testing.T) {
	w := workspacedemo.New()
	for payload, want := range map[string]string{
		`{"table":"sales.orders","edits":[{"op":"update","key":{"id":999},"values":{"status":"late"}}]}`: "no row id=999",
		`{"table":"sales.orders","edits":[{"op":"update","key":{"id":1},"values":{"id":7}}]}`:            "cannot be updated",
		`{"table":"sales.orders","edits":[{"op":"update","key":{"id":1},"values":{"total":"big"}}]}`:     "give a number",
		`{"table":"sales.orders","edits":[{"op":"insert","values":{"id":1,"customer_id":1}}]}`:           "already has a row id=1",
		`{"table":"sales.orders","edits":[{"op":"insert","values":{"status":"late"}}]}`:                  "customer_id is not nullable",
		`{"table":"sales.orders","edits":[{"op":"delete","key":{"order":1}}]}`:                           "key of sales.orders is id",
		`{"table":"sales.orders","edits":[{"op":"insert","values":{"colour":"red"}}]}`:                   "no column \"colour\"",
		`{"table":"sales.invoices","edits":[{"op":"delete","key":{"id":1}}]}`:                            "no table",
	} {
		if _, err := callErr(w, "stageRowEdits", payload); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", payload, err, want)
		}
	}
	if ids := editIDs(decode(t, call(t, w, "listStagedEdits", `{}`))); len(ids) != 0 {
		t.Errorf("refused edits were staged: %v", ids)
	}
}

func TestImportFiles(t *testing.T) {
	w := workspacedemo.New()
	res := decode(t, call(t, w, "importFile", `{"fileId":"upload-2","table":"sales.returns"}`))
	if res["stagedRows"] != 4.0 || res["table"] != "sales.returns" {
		t.Fatalf("import create: %v", res)
	}
	if _, err := callErr(w, "importFile", `{"fileId":"upload-2","table":"sales.returns"}`); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second create of the same table: %v", err)
	}
	call(t, w, "importFile", `{"fileId":"upload-3","table":"inventory.warehouses","mode":"append","hasHeader":false,"delimiter":";"}`)
	call(t, w, "importFile", `{"fileId":"upload-1","table":"sales.customers","mode":"append"}`)
	if _, err := callErr(w, "importFile", `{"fileId":"upload-3","table":"inventory.warehouses","mode":"append"}`); err == nil {
		t.Error("a file read with the wrong delimiter was staged")
	}
	if _, err := callErr(w, "importFile", `{"fileId":"upload-7","table":"sales.x"}`); err == nil || !strings.Contains(err.Error(), "upload-1 (new_customers.csv)") {
		t.Errorf("an unknown file: %v", err)
	}
	if res := decode(t, call(t, w, "commitStagedEdits", `{"message":"imports"}`)); res["committed"] != 3.0 {
		t.Fatalf("commit: %v", res)
	}
	for table, want := range map[string]int{"sales.returns": 4, "inventory.warehouses": 6, "sales.customers": 15} {
		if n := count(t, w, table, ""); n != want {
			t.Errorf("%s has %d rows, want %d", table, n, want)
		}
	}
	desc := decode(t, call(t, w, "describeTable", `{"table":"returns"}`))
	var cols []string
	for _, c := range desc["columns"].([]any) {
		c := c.(map[string]any)
		cols = append(cols, fmt.Sprint(c["name"], " ", c["type"]))
	}
	if got := strings.Join(cols, ", ") + fmt.Sprint(" key ", desc["primaryKey"]); got != "id bigint, order_id bigint, reason text, returned_on date key [id]" {
		t.Errorf("the imported table: %s", got)
	}
	if n := count(t, w, "sales.customers", "tier = 'standard' and created_at >= '2025-06-02'"); n != 1 {
		t.Errorf("the appended customers did not take the defaults: %d", n)
	}
}

func TestSchemaChanges(t *testing.T) {
	w := workspacedemo.New()
	call(t, w, "stageSchemaChange", `{"table":"sales.orders","change":"addColumn","column":"notes","type":"varchar(200)"}`)
	call(t, w, "stageRowEdits", `{"table":"sales.orders","edits":[{"op":"update","key":{"id":1},"values":{"notes":"gift wrap"}}]}`)
	call(t, w, "stageSchemaChange", `{"table":"sales.orders","change":"createIndex","indexColumns":["notes"]}`)
	call(t, w, "stageSchemaChange", `{"table":"sales.orders","change":"dropIndex","column":"orders_customer_id_idx"}`)
	call(t, w, "commitStagedEdits", `{}`)
	if n := count(t, w, "sales.orders", "notes = 'gift wrap'"); n != 1 {
		t.Errorf("the new column: %d", n)
	}
	idx := decode(t, call(t, w, "getIndexStats", `{"table":"sales.orders","includeUnused":true}`))
	if got := fmt.Sprint(idx["indexes"]); !strings.Contains(got, "orders_notes_idx") || strings.Contains(got, "orders_customer_id_idx") {
		t.Errorf("indexes after the changes: %s", got)
	}
	w = workspacedemo.New()
	for payload, want := range map[string]string{
		`{"table":"sales.orders","change":"dropColumn","column":"id"}`:                    "primary key",
		`{"table":"sales.orders","change":"dropColumn","column":"customer_id"}`:           "orders_customer_fk",
		`{"table":"sales.orders","change":"addColumn","column":"x","type":"money"}`:       "unknown type",
		`{"table":"sales.orders","change":"alterType","column":"status","type":"bigint"}`: "cannot become bigint",
		`{"table":"sales.orders","change":"renameColumn","column":"status"}`:              "needs column and newName",
		`{"table":"sales.orders","change":"dropIndex","indexColumns":["customer_id"]}`:    "name the index",
	} {
		if _, err := callErr(w, "stageSchemaChange", payload); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", payload, err, want)
		}
	}
}
