package mcp_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-go/quiver/mcp"
	"github.com/quiver-go/quiver/tools"
)

// BenchmarkCatalogChange times one catalog change under N sessions (SDK
// in-memory transports, read-only tier): from the source's signal until
// every client received its list_changed. server-ms/op is the part until
// the server had refreshed every session's listing; cpu-ms/op the CPU time
// the process spent per change, the in-process clients' included.
//
//	go test ./mcp -run '^$' -bench CatalogChange -benchtime 5x
func BenchmarkCatalogChange(b *testing.B) {
	for _, n := range benchSessions {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			src := newSwitchSource(b)
			s, err := mcp.New(mcp.Config{Source: src, Anonymous: tools.ExposureReadOnly, MaxSessions: -1, MaxSessionsPerCredential: -1})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			if err := s.Ready(context.Background()); err != nil {
				b.Fatal(err)
			}
			var got atomic.Int64
			inMemory(b, s, n, &got)
			var server time.Duration
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := range b.N {
				versions, want := s.CatalogVersions(), int64(n)*int64(i+1)
				start := time.Now()
				src.flip()
				waitWithin(b, time.Minute, "the catalog change", func() bool { return s.CatalogVersions() > versions })
				server += time.Since(start)
				waitWithin(b, time.Minute, "every session's list_changed", func() bool { return got.Load() >= want })
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(server.Milliseconds())/float64(b.N), "server-ms/op")
			b.ReportMetric(float64(s.ListingBuilds()), "listings")
		})
	}
}

// benchSessions are the session counts BenchmarkCatalogChange runs at.
var benchSessions = []int{2000, 20000}

// cpuTime is the CPU time the process used so far, user and system: the
// clients' share included.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
