package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/redistest"
)

func TestBenchRegistry(t *testing.T) {
	r := quiver(t, "bench", "registry", "--calls", "200", "--concurrency", "8", "--json").mustSucceed(t)
	wantKeys(t, []byte(r.stdout), "calls", "concurrency", "registry", "direct", "overhead_p50_ms", "latency_calls", "registry_one_at_a_time", "direct_one_at_a_time", "overhead_p50_one_at_a_time_ms", "lost", "duplicated", "store")
	var out jsonBench
	decodeJSON(t, r.stdout, &out)
	if out.Calls != 200 || out.Concurrency != 8 || out.Lost != 0 || out.Duplicated != 0 ||
		out.Registry.Failed != 0 || out.Direct.Failed != 0 || out.Registry.CallsPerSecond <= 0 || out.Direct.CallsPerSecond <= 0 ||
		out.Registry.P50Ms <= 0 || out.Registry.P99Ms < out.Registry.P50Ms || out.Store.Bytes <= 0 || out.Store.Kept {
		t.Errorf("figures:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Dir(out.Store.File)); !os.IsNotExist(err) {
		t.Errorf("the temporary data folder %s is still there: %v", filepath.Dir(out.Store.File), err)
	}

	data := filepath.Join(t.TempDir(), "bench")
	r = quiver(t, "bench", "registry", "--calls", "50", "--concurrency", "4", "--data", data).mustSucceed(t)
	for _, want := range []string{
		"calls    50 on each path, 4 concurrent consumers\n",
		"store    embedded bbolt, " + filepath.Join(data, "registry.db") + " (kept): ",
		"\nPATH                     CALLS/S  P50",
		"\nregistry                 ", "\ndirect                   ",
		"\nregistry, one at a time  ", "\ndirect, one at a time    ",
		"ms under load", "ms one call at a time (5 calls)", "\nlost          0\nduplicated    0\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table has no %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "registry.db")); err != nil {
		t.Errorf("--data: the store is not kept: %v", err)
	}
}

// Through two nodes sharing a Redis: the run's keys are deleted afterwards.
func TestBenchRegistryOnRedis(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{})
	r := quiver(t, "bench", "registry", "--calls", "100", "--concurrency", "8", "--store", "redis", "--redis-url", rs.URL(), "--nodes", "2", "--json").mustSucceed(t)
	var out jsonBench
	decodeJSON(t, r.stdout, &out)
	if out.Lost != 0 || out.Duplicated != 0 || out.Registry.Failed != 0 || out.Store.Kind != "redis" || out.Store.Nodes != 2 || out.Store.File != "" {
		t.Errorf("figures:\n%s", r.stdout)
	}
	if n, err := rs.Client(t).DBSize(context.Background()).Result(); err != nil || n != 0 {
		t.Errorf("the run left %d keys in Redis (%v)", n, err)
	}
}

func TestBenchRegistryNodesNeedRedis(t *testing.T) {
	r := quiver(t, "bench", "registry", "--nodes", "2")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--nodes 2: want 1, or more with --store redis") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
	r = quiver(t, "bench", "registry", "--store", "redis", "--redis-url", "")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--store redis needs --redis-url") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
}
