package registry_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
)

func TestWaitServedWaitsForTheRevision(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	c := reg.Client(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := c.WaitServed(ctx, "remote", ""); err == nil || !strings.Contains(err.Error(), `toolset "remote" never had a provider (not listed)`) {
		t.Fatalf("WaitServed before any provider: %v", err)
	}
	registrytest.Serve(t, reg.Client(t, ""), registry.Registration{Toolset: registrytest.Echo("remote"), Revision: "r1"}, registrytest.NewCounter())
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitServed(ctx, "remote", "r1"); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancelShort()
	if err := c.WaitServed(short, "remote", "r2"); err == nil || !strings.Contains(err.Error(), `listed at revision "r1"`) {
		t.Fatalf("WaitServed for a revision not served: %v", err)
	}
}
