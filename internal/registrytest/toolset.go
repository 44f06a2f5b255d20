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

// Tenant is a toolset declaration whose one tool, "lookup", has two
// injected fields: tenant_id from a run label (its schema has a pattern)
// and session_id from the call's meta. Its result echoes the query, the
// tenant and the payload the executor saw.
func Tenant() contract.ToolsetDeclaration {
	return contract.ToolsetDeclaration{
		Name: "tenant",
		Tools: []contract.ToolDeclaration{{
			Name: "lookup", Title: "Look up", Description: "Look a record up in the caller's tenant.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},` +
				`"tenant_id":{"type":"string","pattern":"^t-[a-z]+$"},"session_id":{"type":"string"}},` +
				`"required":["q","tenant_id"],"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"tenant":{"type":"string"},"payload":{"type":"string"}},"required":["q","tenant","payload"],"additionalProperties":false}`),
			Inject:       []string{"tenant_id", "session_id"},
		}},
	}
}
