package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/quiver-go/quiver/examples/registry/gen/registries/corp"
	"github.com/quiver-go/quiver/examples/registry/gen/toolsets/inventory"
	"github.com/quiver-go/quiver/examples/registry/gen/toolsets/shipping"
	"github.com/quiver-go/quiver/registry"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/stores"
	"github.com/quiver-go/quiver/toolcall"
)

// company is the company registry, started in this process on a free
// loopback port with its embedded store in a temporary folder.
type company struct {
	client *registry.Client
	node   *node.Node
	dir    string
}

func startRegistry(ctx context.Context) (*company, error) {
	dir, err := os.MkdirTemp("", "quiver-registry-example")
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := node.Start(ctx, node.Config{
		Store:  stores.Config{Kind: stores.Embedded, Dir: dir},
		Server: server.Config{Logger: quiet},
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := &company{node: n, dir: dir}
	// The generated client carries the design's settings (timeout, retry,
	// cache TTL); WithBaseURL points it at this process's registry instead
	// of the design's URL.
	c.client, err = corp.NewClient(registry.WithBaseURL(n.URL))
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// close stops the registry and removes its data folder.
func (c *company) close() {
	_ = c.node.Close()
	os.RemoveAll(c.dir)
}

// provider is one running provider process of a toolset.
type provider struct {
	stop context.CancelFunc
	done chan error
}

// publish serves reg with exec until the provider is stopped, and waits
// until the registry routes calls to it at reg's revision.
func (c *company) publish(reg registry.Registration, exec toolcall.Executor) (*provider, error) {
	reg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	p := &provider{stop: cancel, done: make(chan error, 1)}
	go func() { p.done <- registry.Serve(ctx, c.client, reg, exec) }()
	if err := c.waitActive(reg.Toolset.Name, reg.Revision); err != nil {
		cancel()
		return nil, err
	}
	return p, nil
}

// stopProvider stops p and waits until it has drained.
func stopProvider(p *provider) error {
	p.stop()
	return <-p.done
}

// waitActive waits until toolset's active registration is revision, with
// a live provider.
func (c *company) waitActive(toolset, revision string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.client.WaitServed(ctx, toolset, revision)
}

// inventoryRegistration is the inventory toolset as the warehouse
// publishes it: version 1.0.0.
func inventoryRegistration() registry.Registration {
	reg := inventory.CorpRegistration("inventory-r1")
	reg.Toolset.Version = "1.0.0"
	return reg
}

// stockExecutor counts stock. counted, when set, hears of each count
// before it is answered: the example uses it to deploy the shipping
// provider while the clerk is working.
func stockExecutor(counted func()) toolcall.Executor {
	levels := map[string]int{"WIDGET-1": 12, "GADGET-7": 0}
	return toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		p, err := inventory.DecodeStock(call.Payload, call.Meta, nil)
		if err != nil {
			return nil, err
		}
		units, ok := levels[p.Sku]
		if !ok {
			return nil, fmt.Errorf("unknown product %q", p.Sku)
		}
		if counted != nil {
			counted()
		}
		out, err := inventory.StockTool().Result.ToJSON(&inventory.StockResult{Sku: p.Sku, Units: units})
		return &toolcall.Result{Result: out}, err
	})
}

// shippingExecutor ships parcels numbered per revision.
func shippingExecutor(revision string) toolcall.Executor {
	var mu sync.Mutex
	n := 0
	return toolcall.ExecutorFunc(func(_ context.Context, call *toolcall.Call) (*toolcall.Result, error) {
		p, err := shipping.DecodeShip(call.Payload, call.Meta, nil)
		if err != nil {
			return nil, err
		}
		if p.Units <= 0 {
			return nil, errors.New("nothing to ship")
		}
		mu.Lock()
		n++
		parcel := fmt.Sprintf("P-%s-%d", revision, n)
		mu.Unlock()
		out, err := shipping.ShipTool().Result.ToJSON(&shipping.ShipResult{Parcel: parcel})
		return &toolcall.Result{Result: out}, err
	})
}
