package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/tools/contract"
)

// withoutInjected gives the executor's Payload without the injected
// fields the registry filled in, canonical (no HTML escaping), and refuses
// a payload lacking one: it came from a node or consumer that predates
// injected fields on the registry.
func TestWithoutInjected(t *testing.T) {
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{Name: "tenant", Tools: []contract.ToolDeclaration{{
		Name: "lookup", Title: "Look up", Description: "Look a record up.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"tenant_id":{"type":"string"}},"required":["q"]}`),
		Inject:      []string{"tenant_id"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	spec := specs[0]
	got, err := withoutInjected(spec, json.RawMessage(`{"q":"<a&b>","tenant_id":"t-acme"}`))
	if err != nil || string(got) != `{"q":"<a&b>"}` {
		t.Fatalf("withoutInjected = %s, %v: want {\"q\":\"<a&b>\"}", got, err)
	}
	if _, err := withoutInjected(spec, json.RawMessage(`{"q":"x"}`)); err == nil || !strings.Contains(err.Error(), `lacks its injected field "tenant_id"`) {
		t.Fatalf("a payload without the injected field: %v", err)
	}
	if _, err := withoutInjected(spec, json.RawMessage(`["x"]`)); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("a payload that is not an object: %v", err)
	}
}
