package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/quiver-go/quiver/toolcall"
	"github.com/quiver-go/quiver/tools/contract"
)

// ToolsetName and ToolName name the tool every measured call runs.
const (
	ToolsetName = "bench"
	ToolName    = "echo"
)

// Toolset is the declaration the benchmark's provider publishes: one tool,
// echo, that returns the text it is given (the echo tool of the registry's
// test toolset, registrytest.Echo).
func Toolset() contract.ToolsetDeclaration {
	return contract.ToolsetDeclaration{
		Name:        ToolsetName,
		Description: "The registry benchmark's toolset: a tool that returns its text.",
		Tags:        []string{"bench"},
		Tools: []contract.ToolDeclaration{{
			Name: ToolName, Title: "Echo", Description: "Return the text it is given.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":100}},"required":["text"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}},
	}
}

// Counter is the executor of Toolset's echo: it counts how often it ran
// each call id, so a run can tell a call executed twice.
type Counter struct {
	mu   sync.Mutex
	runs map[string]int
}

// NewCounter returns a Counter that has run nothing.
func NewCounter() *Counter { return &Counter{runs: map[string]int{}} }

// Execute runs echo: {"text": t} → {"text": t}.
func (c *Counter) Execute(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	c.mu.Lock()
	c.runs[call.Meta.ToolCallID]++
	c.mu.Unlock()
	if call.Ident.Tool() != ToolName {
		return nil, fmt.Errorf("no tool %q", call.Ident.Tool())
	}
	var p struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(call.Payload, &p); err != nil {
		return nil, err
	}
	out, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return &toolcall.Result{Result: out}, nil
}

// Duplicated returns how many call ids ran more than once.
func (c *Counter) Duplicated() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, runs := range c.runs {
		if runs > 1 {
			n++
		}
	}
	return n
}

// Runs returns how many times call id ran.
func (c *Counter) Runs(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[id]
}
