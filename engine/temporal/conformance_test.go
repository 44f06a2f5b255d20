package temporal_test

import (
	"testing"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/temporal"
	"github.com/quiver-go/quiver/runtime/runtimetest"
)

// The runtime's conformance suite, the one the root module runs on
// engine/inmem, on Temporal: every runtime of it on a worker of its own
// task queue.
func TestConformanceOnTemporal(t *testing.T) {
	runtimetest.Run(t, func(t testing.TB) engine.Engine {
		return newWorker(t, newQueue(t), temporal.Options{})
	})
}
