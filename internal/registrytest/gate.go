package registrytest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/quiver-go/quiver/toolcall"
)

// Gate is an executor whose calls block until the test opens the gate (or
// their context ends): it holds calls "in flight" for as long as a test
// needs. It counts runs per call id like Counter.
type Gate struct {
	open    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	runs    map[string]int
	started chan string
}

// NewGate returns a closed gate.
func NewGate() *Gate {
	return &Gate{open: make(chan struct{}), runs: map[string]int{}, started: make(chan string, 1024)}
}

// Execute waits for the gate, then answers {"ok":true}.
func (g *Gate) Execute(ctx context.Context, call *toolcall.Call) (*toolcall.Result, error) {
	id := call.Meta.ToolCallID
	g.mu.Lock()
	g.runs[id]++
	g.mu.Unlock()
	g.started <- id
	select {
	case <-g.open:
		return &toolcall.Result{Result: json.RawMessage(`{"ok":true}`)}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Open lets every call through, now and later.
func (g *Gate) Open() { g.once.Do(func() { close(g.open) }) }

// Started returns the next call id that started running.
func (g *Gate) Started() <-chan string { return g.started }

// Runs returns how many times call id ran.
func (g *Gate) Runs(id string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runs[id]
}
