package boltstore

import (
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// BenchmarkCallLifecycle accepts calls assigned to a lease and settles
// them: two durable writes a call. serial is one writer, every write its
// own sync; parallel has 16 writers a CPU, sharing syncs through group
// commit. writes/commit is how many writes shared a transaction.
func BenchmarkCallLifecycle(b *testing.B) {
	for _, bc := range []struct {
		name        string
		parallelism int
	}{{"serial", 0}, {"parallel", 16}} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "registry.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := b.Context()
			r := store.Registration{Toolset: "weather", Revision: "1", Fingerprint: "fp", Token: "tok"}
			var leases []string
			for range 8 {
				reg, err := s.Register(ctx, store.RegisterInput{Registration: r, MaxInFlight: 64, TTL: time.Hour})
				if err != nil {
					b.Fatal(err)
				}
				leases = append(leases, reg.Lease.ID)
			}
			var seq, workers atomic.Int64
			lifecycle := func(lease string) {
				id := "call-" + strconv.FormatInt(seq.Add(1), 10)
				c := store.Call{ID: id, Toolset: "weather", Tool: "echo", Token: "tok",
					Payload: []byte(`{"text":"hello"}`), Digest: id}
				rec, _, err := s.AcceptCall(ctx, c, lease)
				if err != nil || rec.State != store.CallPublished {
					b.Errorf("AcceptCall: %s, %v", rec.State, err)
					return
				}
				st := store.Settlement{CallID: id, LeaseID: lease, Outcome: store.OutcomeOK, Result: []byte(`{"ok":true}`)}
				if _, err := s.SettleCall(ctx, st); err != nil {
					b.Errorf("SettleCall: %v", err)
				}
			}
			commits, committed := s.commits.Load(), s.committed.Load()
			b.ResetTimer()
			if bc.parallelism == 0 {
				for b.Loop() {
					lifecycle(leases[0])
				}
			} else {
				b.SetParallelism(bc.parallelism)
				b.RunParallel(func(pb *testing.PB) {
					lease := leases[workers.Add(1)%int64(len(leases))]
					for pb.Next() {
						lifecycle(lease)
					}
				})
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			if n := s.commits.Load() - commits; n > 0 {
				b.ReportMetric(float64(s.committed.Load()-committed)/float64(n), "writes/commit")
			}
		})
	}
}
