package registrytest

import (
	"testing"

	"github.com/quiver-go/quiver/internal/loopback"
)

// FreeAddr is loopback.FreeAddr for a test: a loopback address nothing
// listens on, for a registry process the test starts later (and may start
// again there), or for a request that must find nobody. It fails the test
// when no port is free.
func FreeAddr(t testing.TB) string {
	t.Helper()
	addr, err := loopback.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}
