package boltstore

import (
	"fmt"

	"go.etcd.io/bbolt"
)

// The buckets; doc.go describes what each holds.
var (
	bucketMeta        = []byte("meta")
	bucketSessions    = []byte("sessions")
	bucketCheckpoints = []byte("checkpoints")
)

// keyLayout is the meta key holding the layout version.
var keyLayout = []byte("layout")

// layout is the layout version this package reads and writes.
const layout = "1"

// initLayout creates the buckets of a new file and checks those of an
// existing one: a file holding other buckets (another store's file) or
// another layout is refused.
func initLayout(tx *bbolt.Tx) error {
	ours := map[string]bool{string(bucketMeta): true, string(bucketSessions): true, string(bucketCheckpoints): true}
	err := tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
		if !ours[string(name)] {
			return fmt.Errorf("it holds bucket %q, so it is not the runtime's store file (runs.db; the registry's is registry.db): give Open the runtime's own file", name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketMeta, bucketSessions, bucketCheckpoints} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(bucketMeta)
	switch got := meta.Get(keyLayout); {
	case got == nil:
		return meta.Put(keyLayout, []byte(layout))
	case string(got) != layout:
		return fmt.Errorf("layout %q, this build reads layout %s: open it with the release that wrote it", got, layout)
	}
	return nil
}
