package registrytest

import (
	"encoding/json"

	"github.com/quiver-go/quiver/tools/contract"
)

// Echo is a small toolset declaration: "echo" returns its text, "add" sums
// two integers, "slow" waits its millis before answering.
func Echo(name string) contract.ToolsetDeclaration {
	return contract.ToolsetDeclaration{
		Name:        name,
		Description: "Test tools that echo, add and wait.",
		Tags:        []string{"test"},
		Tools: []contract.ToolDeclaration{
			{
				Name: "echo", Title: "Echo", Description: "Return the text it is given.",
				Keywords:     []string{"repeat"},
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":100}},"required":["text"]}`),
				OutputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			},
			{
				Name: "add", Title: "Add", Description: "Add two integers.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
			},
			{
				Name: "slow", Title: "Slow", Description: "Wait some milliseconds, then answer.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"millis":{"type":"integer","minimum":0,"maximum":60000}},"required":["millis"]}`),
			},
		},
	}
}
