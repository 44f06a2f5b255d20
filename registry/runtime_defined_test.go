package registry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
	gen "github.com/quiver-go/quiver/registry/gen/registry"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools/contract"
)

// A provider written without a design publishes a declaration it builds
// at run time (what contract.Compile takes); the registry computes the
// same fingerprint from what it received, and resolves the same contract.
func TestARuntimeDefinedToolsetKeepsItsFingerprint(t *testing.T) {
	decl := contract.ToolsetDeclaration{
		Name: "weather", Description: "Weather by city.", Version: "1.0.0", Tags: []string{"geo"},
		Tools: []contract.ToolDeclaration{{
			Name: "forecast", Title: "Forecast", Description: "Tomorrow's forecast for a city.",
			Keywords:       []string{"temperature", "rain"},
			InputSchema:    json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"tenant":{"type":"string"}},"required":["city","tenant"]}`),
			OutputSchema:   json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}}}`),
			Inject:         []string{"tenant"},
			RequiredLabels: []string{"tenant"},
			Meta:           map[string][]string{"owner": {"geo-team"}},
		}},
	}
	if _, err := contract.CompileToolset(decl); err != nil {
		t.Fatal(err)
	}
	want, err := contract.Fingerprint(decl)
	if err != nil {
		t.Fatal(err)
	}
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	registrytest.Serve(t, c, registry.Registration{Toolset: decl, Revision: "build-7"}, registrytest.Returning(func(context.Context, *toolcall.Call) (json.RawMessage, error) {
		return json.RawMessage(`{"celsius":21.5}`), nil
	}))
	ts := registrytest.WaitProviders(t, c, "weather", 1)
	if ts.Fingerprint != want {
		t.Fatalf("the registry computed %s, the provider %s", ts.Fingerprint, want)
	}
	var back contract.ToolsetDeclaration
	raw, _ := json.Marshal(ts.Declaration)
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if got, _ := contract.Fingerprint(back); got != want {
		t.Fatalf("the resolved declaration hashes to %s, want %s", got, want)
	}
	res, err := c.ResolveToolset(context.Background(), &gen.ResolveToolsetPayload{Name: "weather", Version: ptr("1.0.0")})
	if err != nil || res.Toolset.Token != ts.Token {
		t.Fatalf("%+v %v", res, err)
	}
}

func ptr[T any](v T) *T { return &v }
