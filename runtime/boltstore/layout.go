package boltstore

import (
	"fmt"

	"go.etcd.io/bbolt"
)

// The buckets; doc.go describes what each holds. The run log's are named
// run_*, never plain "leases": that is a bucket of the registry's file,
// by which Open tells registry.db from runs.db.
var (
	bucketMeta        = []byte("meta")
	bucketSessions    = []byte("sessions")
	bucketCheckpoints = []byte("checkpoints")
	bucketRuns        = []byte("runs")
	bucketRunEvents   = []byte("run_events")
	bucketRunLeases   = []byte("run_leases")
)

// buckets are every bucket of a file in this layout.
var buckets = [][]byte{bucketMeta, bucketSessions, bucketCheckpoints, bucketRuns, bucketRunEvents, bucketRunLeases}

// keyLayout is the meta key holding the layout version.
var keyLayout = []byte("layout")

// layout is the layout version this package reads and writes; layout1 is
// the one before the run log, which Open migrates.
const (
	layout  = "2"
	layout1 = "1"
)

// initLayout creates the buckets of a new file, migrates a layout-1 file
// (adding the run log's buckets, leaving sessions and checkpoints as they
// are) and checks an existing one: a file holding other buckets (another
// store's file) or another layout is refused.
func initLayout(tx *bbolt.Tx) error {
	ours := map[string]bool{}
	for _, name := range buckets {
		ours[string(name)] = true
	}
	err := tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
		if !ours[string(name)] {
			return fmt.Errorf("it holds bucket %q, so it is not the runtime's store file (runs.db; the registry's is registry.db): give Open the runtime's own file", name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if meta := tx.Bucket(bucketMeta); meta != nil {
		switch got := meta.Get(keyLayout); {
		case got == nil, string(got) == layout, string(got) == layout1:
		default:
			return fmt.Errorf("layout %q, this build reads layout %s (and migrates layout %s): open it with the release that wrote it", got, layout, layout1)
		}
	}
	for _, name := range buckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(bucketMeta)
	if string(meta.Get(keyLayout)) != layout {
		return meta.Put(keyLayout, []byte(layout))
	}
	return nil
}
