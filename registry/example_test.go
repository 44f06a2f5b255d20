package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/stores"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools/contract"
)

// A registry on its embedded store, a provider publishing a toolset to it
// and a consumer calling the tool through it, in one process. In
// production each runs on its own; the registry is `quiver registry
// serve`, and agents read it at every planning step.
func ExampleServe() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	dir, err := os.MkdirTemp("", "registry-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := node.Start(ctx, node.Config{
		Store:  stores.Config{Kind: stores.Embedded, Dir: dir},
		Server: server.Config{Logger: quiet}, // no Keys: every client is admin, on loopback
	})
	if err != nil {
		panic(err)
	}
	defer n.Close()
	client, err := registry.NewClient(n.URL)
	if err != nil {
		panic(err)
	}

	// The provider: a toolset's contract and the executor that runs its
	// calls, served until ctx ends.
	weather := contract.ToolsetDeclaration{Name: "weather", Tools: []contract.ToolDeclaration{{
		Name: "forecast", Title: "Forecast", Description: "Tomorrow's weather for a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}}}
	forecast := toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			City string `json:"city"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		return &toolcall.Result{Result: json.RawMessage(`{"city":"` + p.City + `","sky":"clear"}`)}, nil
	})
	go func() {
		_ = registry.Serve(ctx, client, registry.Registration{Toolset: weather, Revision: "r1", Logger: quiet}, forecast)
	}()
	if err := client.WaitServed(ctx, "weather", "r1"); err != nil {
		panic(err)
	}

	// The consumer: the contract and token from one resolution, then a
	// call under an id that makes retries run it once.
	res, err := client.Resolve(ctx, registry.ResolveRequest{Toolsets: []string{"weather"}})
	if err != nil {
		panic(err)
	}
	specs, err := contract.CompileToolset(res.Toolsets[0].Declaration)
	if err != nil {
		panic(err)
	}
	call := &toolcall.Call{Ident: specs[0].Name, Spec: specs[0], Payload: json.RawMessage(`{"city":"Oslo"}`)}
	out, err := registry.CallTool(ctx, client, res.Toolsets[0].Token, "call-1", call)
	if err != nil {
		panic(err)
	}
	fmt.Println(call.Ident, "→", string(out.Result))
	// Output:
	// weather.forecast → {"city":"Oslo","sky":"clear"}
}
