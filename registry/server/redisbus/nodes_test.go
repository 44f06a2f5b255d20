package redisbus_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/internal/registrytest"
	"github.com/quiver-go/quiver/registry"
)

// Two nodes share one Redis: a consumer calls through node A a provider
// whose stream is on node B; many calls, none lost, none run twice.
func TestACallThroughOneNodeReachesAProviderOnAnother(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{})
	a := registrytest.Start(t, registrytest.Options{RedisURL: rs.URL(), Prefix: "two:"})
	b := registrytest.Start(t, registrytest.Options{RedisURL: rs.URL(), Prefix: "two:"})
	exec := registrytest.NewCounter()
	registrytest.Serve(t, b.Client(t, ""), registry.Registration{Toolset: registrytest.Echo("echo"), Revision: "r1", MaxInFlight: 8}, exec)
	consumer := a.Client(t, "")
	ts := registrytest.WaitProviders(t, consumer, "echo", 1)

	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("c%03d", i)
			out, err := registrytest.Call(consumer, "echo", "echo", ts.Token, id, fmt.Sprintf(`{"text":%q}`, id), 10*time.Second)
			if err != nil {
				errs <- fmt.Errorf("%s: %w", id, err)
				return
			}
			if out.Outcome != "ok" {
				errs <- fmt.Errorf("%s: %s", id, out.Outcome)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	runs := exec.Snapshot()
	if len(runs) != n {
		t.Errorf("%d calls ran, want %d", len(runs), n)
	}
	for id, k := range runs {
		if k != 1 {
			t.Errorf("%s ran %d times", id, k)
		}
	}
}
