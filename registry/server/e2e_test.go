package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
)

func TestProviderServesAConsumersCall(t *testing.T) {
	r := registrytest.Start(t, registrytest.Options{})
	c := r.Client(t, "")
	exec := registrytest.NewCounter()
	registrytest.Serve(t, c, registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1"}, exec)
	ts := registrytest.WaitProviders(t, c, "echo", 1)

	out, err := registrytest.Call(c, "echo", "add", ts.Token, "call-1", `{"a":9007199254740993,"b":1}`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(out.Result)
	if out.Outcome != "ok" || string(got) != `{"sum":9007199254740994}` {
		t.Fatalf("outcome %s, result %s", out.Outcome, got)
	}
	// A retry returns the recorded outcome and runs nothing.
	again, err := registrytest.Call(c, "echo", "add", ts.Token, "call-1", `{"b":1,"a":9007199254740993}`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if again2, _ := json.Marshal(again.Result); string(again2) != string(got) || exec.Runs("call-1") != 1 {
		t.Fatalf("retry: %s, runs %d", again2, exec.Runs("call-1"))
	}
}
