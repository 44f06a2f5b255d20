package runtime

import (
	"sync"

	"github.com/quiver-go/quiver/registry"
)

// registryConn is a connected registry: its client and what the runtime
// last read from it.
type registryConn struct {
	name   string
	client *registry.Client

	mu sync.Mutex
}

func newRegistryConn(name string, client *registry.Client) *registryConn {
	return &registryConn{name: name, client: client}
}
