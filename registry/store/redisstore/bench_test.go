package redisstore_test

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/registry/store"
	"github.com/quiver-go/quiver/registry/store/redisstore"
)

// BenchmarkCallLifecycle accepts calls assigned to a lease and settles
// them: two scripts, two round trips a call, on the server's clock. serial
// is one caller; parallel has 16 callers a CPU. aof runs Redis with
// appendfsync always (every write synced before Redis answers), noaof
// without persistence. redis-µs/call is the time Redis spent running the
// scripts of a call.
func BenchmarkCallLifecycle(b *testing.B) {
	for _, persistence := range []struct {
		name string
		aof  bool
	}{{"noaof", false}, {"aof", true}} {
		srv := redistest.Start(b, redistest.Options{AOF: persistence.aof})
		for _, bc := range []struct {
			name        string
			parallelism int
		}{{"serial", 0}, {"parallel", 16}} {
			b.Run(persistence.name+"/"+bc.name, func(b *testing.B) {
				benchmarkLifecycle(b, srv, bc.parallelism)
			})
		}
	}
}

// scriptMicros reads how many microseconds the server spent in EVALSHA
// and EVAL so far (INFO commandstats).
func scriptMicros(b *testing.B, srv *redistest.Server) float64 {
	info, err := srv.Client(b).Info(b.Context(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, "cmdstat_evalsha:") && !strings.HasPrefix(line, "cmdstat_eval:") {
			continue
		}
		for _, f := range strings.Split(strings.TrimSpace(line[strings.Index(line, ":")+1:]), ",") {
			if v, ok := strings.CutPrefix(f, "usec="); ok {
				n, _ := strconv.ParseFloat(v, 64)
				total += n
			}
		}
	}
	return total
}

func benchmarkLifecycle(b *testing.B, srv *redistest.Server, parallelism int) {
	s := open(b, srv, redisstore.WithPrefix(redistest.NewPrefix()))
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
	micros := scriptMicros(b, srv)
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
	b.ResetTimer()
	if parallelism == 0 {
		for b.Loop() {
			lifecycle(leases[0])
		}
	} else {
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) {
			lease := leases[workers.Add(1)%int64(len(leases))]
			for pb.Next() {
				lifecycle(lease)
			}
		})
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	// The time Redis spent running the two scripts of a call: the bound
	// on calls/s of one Redis, whatever the number of registry nodes.
	b.ReportMetric((scriptMicros(b, srv)-micros)/float64(b.N), "redis-µs/call")
}
