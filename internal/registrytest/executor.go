package registrytest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/quiver-go/quiver/toolcall"
)

// Counter is an executor of Echo's tools that counts how often it ran each
// call id: a test asserts none ran twice and none was lost.
type Counter struct {
	mu   sync.Mutex
	runs map[string]int
	// Started receives each call id as its execution starts, when set
	// (buffered by the test).
	Started chan string
}

// NewCounter returns an empty Counter.
func NewCounter() *Counter { return &Counter{runs: map[string]int{}} }

// Execute runs echo, add and slow; a call's id is its Meta.ToolCallID
// (the registry call id when it came through a registry).
func (c *Counter) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	out, err := c.run(ctx, call.Meta.ToolCallID, call.Ident.Tool(), call.Payload)
	if err != nil {
		return nil, err
	}
	return &toolcall.Result{Result: out}, nil
}

func (c *Counter) run(ctx context.Context, id, tool string, payload json.RawMessage) (json.RawMessage, error) {
	c.mu.Lock()
	c.runs[id]++
	c.mu.Unlock()
	if c.Started != nil {
		c.Started <- id
	}
	switch tool {
	case "echo":
		var p struct{ Text string }
		if err := json.Unmarshal(payload, &p); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"text": p.Text})
	case "add":
		var p struct{ A, B json.Number }
		if err := json.Unmarshal(payload, &p); err != nil {
			return nil, err
		}
		a, _ := new(big.Int).SetString(string(p.A), 10)
		b, _ := new(big.Int).SetString(string(p.B), 10)
		if a == nil || b == nil {
			return nil, fmt.Errorf("add: not integers")
		}
		return json.RawMessage(fmt.Sprintf(`{"sum":%s}`, new(big.Int).Add(a, b))), nil
	case "slow":
		var p struct{ Millis int }
		if err := json.Unmarshal(payload, &p); err != nil {
			return nil, err
		}
		select {
		case <-time.After(time.Duration(p.Millis) * time.Millisecond):
			return json.RawMessage(`{"waited":true}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("no tool %q", tool)
}

// Runs returns how many times call id ran.
func (c *Counter) Runs(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[id]
}

// Snapshot returns a copy of every call id's run count.
func (c *Counter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.runs))
	for k, v := range c.runs {
		out[k] = v
	}
	return out
}

// Returning adapts a function that returns a tool's raw result to a
// toolcall.Executor, for tests whose providers answer with JSON: its error
// is the call's failure.
func Returning(f func(ctx context.Context, call *toolcall.Call) (json.RawMessage, error)) toolcall.Executor {
	return toolcall.ExecutorFunc(func(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		out, err := f(ctx, call)
		if err != nil {
			return nil, err
		}
		return &toolcall.Result{Result: out}, nil
	})
}
