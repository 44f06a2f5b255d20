package toolcall_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/toolcall"
)

// TestOneExecutorServesEveryPath serves one executor value in process, over
// MCP and through registry.Serve at once, and calls it on the four paths a
// model reaches it by: the runtime with the toolset registered, the MCP
// server over it, the runtime and the MCP server reading a real registry.
// A failure of the executor's own kind reaches the model intact on each,
// and every path reads the same answers.
func TestOneExecutorServesEveryPath(t *testing.T) {
	specs := parityToolset(t)
	exec := &counting{reply: func(call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			Name string `json:"name"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		if p.Name == "Nobody" {
			return nil, toolcall.Fail("unknown_person", toolcall.RecoveryCorrectCall, "Nobody is called %s here: ask for a name from the staff list.", p.Name)
		}
		return greeting(call)
	}}
	reg := registrytest.Start(t, registrytest.Options{})
	client := reg.Client(t, "")
	registrytest.Serve(t, client, registry.Registration{Toolset: parityDeclaration(), Revision: "r1"}, exec)
	registrytest.WaitProviders(t, client, "parity", 1)

	paths := []struct {
		name string
		call func(tool, args string) (json.RawMessage, bool)
	}{
		{"runtime, in process", func(tool, args string) (json.RawMessage, bool) {
			return callThroughRuntime(t, specs, exec, tool, args)
		}},
		{"MCP, in process", func(tool, args string) (json.RawMessage, bool) {
			return callThroughMCP(t, specs, exec, tool, args)
		}},
		{"runtime, through the registry", func(tool, args string) (json.RawMessage, bool) {
			return runtimeAnswer(t, func(rt *runtime.Runtime) runtime.AgentRegistration {
				if err := rt.RegisterRegistry("corp", reg.Client(t, "")); err != nil {
					t.Fatal(err)
				}
				return runtime.AgentRegistration{Registries: []runtime.RegistryUse{{Registry: "corp", Toolset: "parity"}}}
			}, tool, args)
		}},
		{"MCP, through the registry", func(tool, args string) (json.RawMessage, bool) {
			return mcpAnswer(t, mcp.Registry(reg.Client(t, "")), tool, args)
		}},
	}
	for _, c := range []struct {
		args string
		kind toolcall.Kind
	}{
		{`{"name":"Nobody"}`, "unknown_person"},
		{`{"name":"Ada"}`, ""},
	} {
		var first json.RawMessage
		before := exec.runs.Load()
		for _, p := range paths {
			answer, isError := p.call("greet", c.args)
			if isError != (c.kind != "") {
				t.Errorf("%s, %s: is error %v: %s", p.name, c.args, isError, answer)
			}
			if c.kind != "" {
				var f struct {
					Error    toolcall.Kind     `json:"error"`
					Recovery toolcall.Recovery `json:"recovery"`
				}
				if err := json.Unmarshal(answer, &f); err != nil || f.Error != c.kind || f.Recovery != toolcall.RecoveryCorrectCall {
					t.Errorf("%s: the model read %s: want kind %s and recovery correct_call", p.name, answer, c.kind)
				}
			}
			if first == nil {
				first = answer
			} else if !bytes.Equal(answer, first) {
				t.Errorf("%s, %s: the model read\n%s\nwhere the runtime in process read\n%s", p.name, c.args, answer, first)
			}
		}
		if runs := exec.runs.Load() - before; runs != int32(len(paths)) {
			t.Errorf("%s: the executor ran %d times over %d paths", c.args, runs, len(paths))
		}
	}
}
