package contract_test

import (
	"encoding/json"
	"fmt"

	"github.com/quiver-go/quiver/tools"
	"github.com/quiver-go/quiver/tools/contract"
)

// A toolset defined at run time — from a configuration file, another
// service's catalog — compiles into the same specs goa gen produces: the
// model-facing schema leaves the injected field out and is closed, and a
// declaration the runtime would refuse fails here with every problem.
func ExampleCompileToolset() {
	specs, err := contract.CompileToolset(contract.ToolsetDeclaration{
		Name: "tickets",
		Tools: []contract.ToolDeclaration{{
			Name: "openTicket", Title: "Open ticket", Description: "Open a support ticket.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"subject":{"type":"string"},"user_id":{"type":"string"}},"required":["subject"]}`),
			Inject:      []string{"user_id"},
		}},
	})
	if err != nil {
		panic(err)
	}
	open := specs[0]
	fmt.Println(open.Name, string(open.Payload.Schema))
	_, err = tools.CanonicalPayload(open, []byte(`{"subject":"Printer jam"}`), tools.PayloadLimits{})
	fmt.Println("valid payload:", err == nil)

	_, err = contract.CompileToolset(contract.ToolsetDeclaration{
		Name:  "tickets",
		Tools: []contract.ToolDeclaration{{Name: "close ticket", InputSchema: json.RawMessage(`{"type":"array"}`)}},
	})
	fmt.Println(err)
	// Output:
	// tickets.openTicket {"type":"object","properties":{"subject":{"type":"string"}},"required":["subject"],"additionalProperties":false}
	// valid payload: true
	// contract: toolset "tickets": invalid tool declaration "tickets.close ticket":
	//   - tools: ident "tickets.close ticket": tool name "close ticket" contains whitespace: use '_' or '-' instead
	//   - input_schema: root "type" must be "object": models send arguments as one JSON object
	//   - title is empty: supply a short human title such as "Search documents"
}
