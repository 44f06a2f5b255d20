package bench

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Figures are one path's measurements.
type Figures struct {
	// Calls is how many calls were made; Failed how many of them did not
	// come back ok with the expected result.
	Calls, Failed int
	// FirstError is the first failure, for the report; nil when none.
	FirstError error
	// Elapsed is the wall time from the first call's start to the last
	// call's end.
	Elapsed time.Duration
	// PerSecond is Calls / Elapsed.
	PerSecond float64
	// P50 and P99 are latency percentiles (nearest rank) over every call,
	// failed ones included.
	P50, P99 time.Duration
}

// drive makes n calls, call(ctx, i) for i in [0, n), from workers
// goroutines that each take the next i as they finish one, and measures
// them. It stops taking new calls when ctx ends.
func drive(ctx context.Context, n, workers int, call func(ctx context.Context, i int) error) Figures {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var mu sync.Mutex
	f := Figures{}
	var wg sync.WaitGroup
	start := time.Now()
	for range min(workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t := time.Now()
				err := call(ctx, i)
				lat[i] = time.Since(t)
				if err != nil {
					mu.Lock()
					f.Failed++
					if f.FirstError == nil {
						f.FirstError = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	f.Elapsed = time.Since(start)
	f.Calls = min(int(next.Load()), n)
	lat = lat[:f.Calls]
	if f.Calls > 0 {
		slices.Sort(lat)
		f.P50, f.P99 = percentile(lat, 50), percentile(lat, 99)
		f.PerSecond = float64(f.Calls) / f.Elapsed.Seconds()
	}
	return f
}

// percentile returns the p-th percentile of sorted by nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 × n)
	return sorted[max(rank, 1)-1]
}
