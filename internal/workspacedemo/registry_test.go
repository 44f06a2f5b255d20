package workspacedemo_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/catalogs"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/internal/workspacedemo"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/toolcall"
)

var _ toolcall.Executor = (*workspacedemo.Workspace)(nil)

// TestServedThroughARegistry publishes the workspace toolset
// (catalogs.WorkspaceToolset(), as quiver serve does) to a real registry
// with a Workspace as the provider's executor, and calls its tools through
// the registry.
func TestServedThroughARegistry(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	c := reg.Client(t, "")
	decl, err := catalogs.WorkspaceToolset()
	if err != nil {
		t.Fatal(err)
	}
	w := workspacedemo.New()
	registrytest.Serve(t, c, registry.Registration{Toolset: decl, Revision: "test-1", Provider: "workspacedemo"}, w)
	ts := registrytest.WaitProviders(t, c, workspacedemo.ToolsetName, 1)

	result := func(id, tool, payload string) map[string]any {
		t.Helper()
		out, err := registrytest.Call(c, workspacedemo.ToolsetName, tool, ts.Token, id, payload, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if out.Outcome != "ok" {
			t.Fatalf("%s: outcome %s (%v)", tool, out.Outcome, out.Error)
		}
		raw, _ := json.Marshal(out.Result)
		return decode(t, raw)
	}
	if res := result("call-1", "countRows", `{"table":"sales.orders","filter":"status = 'late'"}`); res["count"] != 12.0 {
		t.Errorf("countRows through the registry: %v", res)
	}
	exp := result("call-2", "startExport", `{"table":"sales.orders","format":"csv"}`)
	if res := result("call-3", "getExportStatus", `{"exportId":"`+exp["exportId"].(string)+`"}`); res["status"] != "running" {
		t.Errorf("getExportStatus through the registry: %v", res)
	}
	if res := result("call-4", "previewRows", `{"table":"sales.orders","limit":3}`); res["returned"] != 3.0 || res["truncated"] != true {
		t.Errorf("the bounds fields through the registry: %v", res)
	}

	out, err := registrytest.Call(c, workspacedemo.ToolsetName, "countRows", ts.Token, "call-5", `{"table":"sales.invoices"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if out.Outcome != "tool_error" || out.Error == nil || !strings.Contains(*out.Error, "no table \"sales.invoices\"") {
		t.Errorf("a failing call: outcome %s, error %v", out.Outcome, out.Error)
	}
}
