package runtime_test

import (
	"testing"

	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) runtime.Store { return runtime.NewMemoryStore() })
	storetest.RunShared(t, func(*testing.T) (runtime.Store, runtime.Store) {
		s := runtime.NewMemoryStore()
		return s, s
	})
	storetest.RunRuntime(t, func(*testing.T) (runtime.Store, runtime.Store) {
		s := runtime.NewMemoryStore()
		return s, s
	})
}
