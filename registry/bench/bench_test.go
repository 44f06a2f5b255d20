package bench

import (
	"context"
	"testing"
)

func TestRunLosesAndDuplicatesNothing(t *testing.T) {
	res, err := Run(context.Background(), Options{Calls: 100, Concurrency: 8, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lost != 0 || res.Duplicated != 0 || res.Registry.Failed != 0 || res.Direct.Failed != 0 {
		t.Fatalf("lost %d, duplicated %d, registry failures %d (%v), direct failures %d (%v)",
			res.Lost, res.Duplicated, res.Registry.Failed, res.Registry.FirstError, res.Direct.Failed, res.Direct.FirstError)
	}
	if res.Registry.Calls != 100 || res.Direct.Calls != 100 || res.Registry.P50 <= 0 || res.Registry.P99 < res.Registry.P50 || res.StoreBytes <= 0 {
		t.Errorf("figures: %+v", res)
	}
}

// BenchmarkRegistryCall runs Run with b.N calls on each path, for
// profiles: go test -run '^$' -bench RegistryCall -cpuprofile cpu.out ./registry/bench/
func BenchmarkRegistryCall(b *testing.B) {
	res, err := Run(context.Background(), Options{Calls: b.N, Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if res.Lost+res.Duplicated > 0 {
		b.Fatalf("lost %d, duplicated %d: %v", res.Lost, res.Duplicated, res.Registry.FirstError)
	}
	b.ReportMetric(res.Registry.PerSecond, "registry-calls/s")
	b.ReportMetric(res.Direct.PerSecond, "direct-calls/s")
	b.ReportMetric(float64(res.Registry.P50.Microseconds()), "registry-p50-µs")
	b.ReportMetric(float64(res.OverheadP50.Microseconds()), "overhead-p50-µs")
}
