package runtime

import (
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/model/scripted"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/tools"
)

// An agent whose registry key has no grant for a confirmation-gated tool
// still confirms the call in the runtime (the runtime cannot know the
// key's grants), and then its model reads the registry's refusal as a
// not_permitted failure: nothing ran and the run goes on. An agent whose
// key has the grant confirms and runs the call.
func TestRegistryGatedToolNeedsTheKeysGrant(t *testing.T) {
	const admin, plain, granted = "admin-key-0123456789", "plain-key-0123456789", "grant-key-0123456789"
	keys, err := server.NewKeys(
		server.Key{Name: "ops", Key: admin, Role: server.RoleAdmin},
		server.Key{Name: "plain", Key: plain, Role: server.RoleConsumer},
		server.Key{Name: "granted", Key: granted, Role: server.RoleConsumer, Confirm: []string{"remote.echo"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	reg := registrytest.Start(t, registrytest.Options{Keys: keys})
	counter := registrytest.NewCounter()
	decl := registrytest.Echo("remote")
	decl.Tools[0].Confirmation = &tools.ConfirmationSpec{Title: "Echo it?", PromptTemplate: `Echo {{ .text }}?`}
	ops := reg.Client(t, admin)
	registrytest.Serve(t, ops, registry.Registration{Toolset: decl, Revision: "r1"}, counter)
	registrytest.WaitProviders(t, ops, "remote", 1)

	for _, tc := range []struct {
		key  string
		want string // in the tool result the model reads
		runs int
	}{
		{plain, `"error":"not_permitted"`, 0},
		{granted, `{"text":"hello"}`, 1},
	} {
		f := newFixtureWith(t, AgentRegistration{Registries: []RegistryUse{{Registry: "corp", Toolset: "remote"}}}, nil, nil,
			scripted.Call("echo", `{"text":"hello"}`),
			scripted.Reply("done"))
		if err := f.rt.RegisterRegistry("corp", reg.Client(t, tc.key)); err != nil {
			t.Fatal(err)
		}
		out := f.run("go")
		if out.Suspension == nil || len(out.Suspension.Pending) != 1 {
			t.Fatalf("key %s: status %s, want a suspension for confirmation", tc.key, out.Status)
		}
		done := f.cont(out.RunID, out.Suspension.Pending[0].Approve())
		results := toolResults(done.Messages)
		if len(results) != 1 || !strings.Contains(string(results[0].Content), tc.want) {
			t.Fatalf("key %s: the model read %+v, want %s", tc.key, results, tc.want)
		}
		if n := len(counter.Snapshot()); n != tc.runs {
			t.Fatalf("key %s: provider runs %v, want %d", tc.key, counter.Snapshot(), tc.runs)
		}
	}
}
