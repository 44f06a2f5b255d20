package runtimetest_test

import (
	"testing"

	"github.com/quiver-go/quiver/engine"
	"github.com/quiver-go/quiver/engine/inmem"
	"github.com/quiver-go/quiver/runtime/runtimetest"
)

// testConformanceOnInmem runs the runtime's conformance suite on the
// in-memory engine.
func TestConformanceOnInmem(t *testing.T) {
	runtimetest.Run(t, func(t testing.TB) engine.Engine { return inmem.New() })
}
