package bench

import (
	"slices"
	"time"
)

// Figures are the measurements of one kind of request.
type Figures struct {
	// Requests is how many requests were made; Errors how many of them
	// failed (see ErrorCounts for the classes).
	Requests, Errors int
	// FirstError is the first failure, for the report; nil when none.
	FirstError error
	// Elapsed is the wall time of the phase the requests were made in.
	Elapsed time.Duration
	// PerSecond is Requests / Elapsed.
	PerSecond float64
	// P50, P99 and Max are latencies (nearest rank) over every request,
	// failed ones included.
	P50, P99, Max time.Duration
}

// recorder collects one kind of request's latencies and failures. It is
// used by one goroutine; merge joins recorders.
type recorder struct {
	lat    []time.Duration
	errors int
	first  error
}

// add records one request that took d and failed with err (nil: ok).
func (r *recorder) add(d time.Duration, err error) {
	r.lat = append(r.lat, d)
	if err != nil {
		r.errors++
		if r.first == nil {
			r.first = err
		}
	}
}

// merge adds other's requests to r.
func (r *recorder) merge(other *recorder) {
	r.lat = append(r.lat, other.lat...)
	r.errors += other.errors
	if r.first == nil {
		r.first = other.first
	}
}

// figures sorts the latencies and returns the figures of requests made in
// elapsed.
func (r *recorder) figures(elapsed time.Duration) Figures {
	f := Figures{Requests: len(r.lat), Errors: r.errors, FirstError: r.first, Elapsed: elapsed}
	if len(r.lat) == 0 {
		return f
	}
	slices.Sort(r.lat)
	f.P50, f.P99, f.Max = percentile(r.lat, 50), percentile(r.lat, 99), r.lat[len(r.lat)-1]
	if elapsed > 0 {
		f.PerSecond = float64(len(r.lat)) / elapsed.Seconds()
	}
	return f
}

// percentile returns the p-th percentile of sorted by nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 × n)
	return sorted[max(rank, 1)-1]
}
