package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// TestBoundedResultCarriesItsBoundsAndServerDataStays serves a bounded
// listing whose executor also returns server data: the client reads the
// page with its bounds, and nothing of the server data.
func TestBoundedResultCarriesItsBoundsAndServerDataStays(t *testing.T) {
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "logs", Tools: []contract.ToolDeclaration{{
		Name: "tail", Title: "Tail", Description: "The last log lines.", Exposure: tools.ExposureReadOnly,
		InputSchema:  json.RawMessage(`{"type":"object","properties":{}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"lines":{"type":"array","items":{"type":"string"}}},"required":["lines"]}`),
		Bounds:       &tools.BoundsSpec{},
		ServerData:   []contract.ServerDataDeclaration{{Kind: "logs.raw", Audience: tools.AudienceEvidence}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	total := 240
	exec := toolcall.ExecutorFunc(func(context.Context, *toolcall.Call) (*toolcall.Result, error) {
		return &toolcall.Result{
			Result:     json.RawMessage(`{"lines":["a","b"]}`),
			Bounds:     &toolcall.Bounds{Returned: 2, Total: &total, Truncated: true, RefinementHint: "ask for a time range"},
			ServerData: []toolcall.ServerData{{Kind: "logs.raw", Audience: tools.AudienceEvidence, Data: json.RawMessage(`{"secret":"raw-line-with-token"}`)}},
		}, nil
	})
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: "logs", Specs: specs, Executor: exec}}, func(tools.Ident) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	e := startServer(t, mcp.Config{Source: src, Anonymous: tools.ExposureReadOnly})
	text, isErr, res := e.mustConnect("").call(t, "tail", map[string]any{})
	if isErr {
		t.Fatalf("tail = %s", text)
	}
	var got map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got["returned"] != float64(2) || got["truncated"] != true || got["total"] != float64(240) || got["refinement_hint"] != "ask for a time range" {
		t.Fatalf("structuredContent = %s, want the page with its bounds", raw)
	}
	if strings.Contains(text+string(raw), "raw-line-with-token") {
		t.Fatal("server data reached the client")
	}
}
