package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// A runtime-defined toolset served over MCP, here to a client in the same
// process through the SDK's in-memory transports (Handler serves HTTP,
// ServeStdio a client's standard streams). The deferred tool is listed
// once a search found it; with nothing left to find, the search tool is
// no longer listed.
func ExampleServer_ServeTransport() {
	ctx := context.Background()
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{
		Name: "orders",
		Tools: []contract.ToolDeclaration{{
			Name:        "lookupOrder",
			Title:       "Look up order",
			Description: "Look up an order by its id.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
			Exposure:    tools.ExposureReadOnly,
		}},
	})
	if err != nil {
		panic(err)
	}
	lookup := toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		var p struct {
			ID string `json:"id"`
		}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		return &toolcall.Result{Result: json.RawMessage(`{"id":"` + p.ID + `","status":"shipped"}`)}, nil
	})
	src, err := mcp.Toolsets([]toolcall.Toolset{{Name: "orders", Specs: specs, Executor: lookup}}, nil)
	if err != nil {
		panic(err)
	}
	s, err := mcp.New(mcp.Config{Source: src, Anonymous: tools.ExposureReadOnly})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	if err := s.Ready(ctx); err != nil {
		panic(err)
	}

	clientSide, serverSide := sdk.NewInMemoryTransports()
	go func() { _ = s.ServeTransport(ctx, serverSide) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	names := func() (out []string) {
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			panic(err)
		}
		for _, t := range list.Tools {
			out = append(out, t.Name)
		}
		return out
	}
	call := func(name string, args any) string {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			panic(err)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	fmt.Println("listed:", names())
	call(mcp.SearchToolName, map[string]string{"query": "look up an order"})
	fmt.Println("after the search:", names())
	fmt.Println(call("lookupOrder", map[string]string{"id": "A-1"}))
	// Output:
	// listed: [search_tools]
	// after the search: [lookupOrder]
	// {"id":"A-1","status":"shipped"}
}
