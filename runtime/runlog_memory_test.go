package runtime_test

import (
	"testing"

	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/storetest"
)

func TestMemoryRunLogConformance(t *testing.T) {
	storetest.RunLog(t, func(*testing.T) runtime.RunLog { return runtime.NewMemoryRunLog() })
}
