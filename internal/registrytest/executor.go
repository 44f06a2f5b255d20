package registrytest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/quiver-go/quiver/registry"
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

// Execute runs echo, add and slow.
func (c *Counter) Execute(ctx context.Context, call registry.Call) (json.RawMessage, error) {
	c.mu.Lock()
	c.runs[call.ID]++
	c.mu.Unlock()
	if c.Started != nil {
		c.Started <- call.ID
	}
	switch call.Tool {
	case "echo":
		var p struct{ Text string }
		if err := json.Unmarshal(call.Payload, &p); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"text": p.Text})
	case "add":
		var p struct{ A, B json.Number }
		if err := json.Unmarshal(call.Payload, &p); err != nil {
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
		if err := json.Unmarshal(call.Payload, &p); err != nil {
			return nil, err
		}
		select {
		case <-time.After(time.Duration(p.Millis) * time.Millisecond):
			return json.RawMessage(`{"waited":true}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("no tool %q", call.Tool)
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
