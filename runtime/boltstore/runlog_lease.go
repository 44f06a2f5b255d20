package boltstore

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/runtime"
)

// Renew implements [runtime.RunLog].
func (l runLog) Renew(ctx context.Context, owner string, until time.Time) error {
	if owner == "" {
		return fmt.Errorf("boltstore: Renew without an owner: give the id of the runtime instance whose runs the lease holds")
	}
	b, err := marshalLease(until)
	if err != nil {
		return err
	}
	return l.s.update(ctx, func(tx *bbolt.Tx) error {
		if err := tx.Bucket(bucketRunLeases).Put([]byte(owner), b); err != nil {
			return fmt.Errorf("boltstore: write the lease of owner %q: %w", owner, err)
		}
		return nil
	})
}

// Stale implements [runtime.RunLog]: it decodes every run's info, and the
// lease of each running run's owner.
func (l runLog) Stale(ctx context.Context, now time.Time) ([]runtime.RunInfo, error) {
	var out []runtime.RunInfo
	err := l.s.view(ctx, func(tx *bbolt.Tx) error {
		all, err := allRuns(tx)
		if err != nil {
			return err
		}
		leases := tx.Bucket(bucketRunLeases)
		until := map[string]time.Time{}
		for _, info := range all {
			if info.Status != runtime.StatusRunning {
				continue
			}
			t, ok := until[info.Owner]
			if !ok {
				if b := leases.Get([]byte(info.Owner)); b != nil {
					if t, err = unmarshalLease([]byte(info.Owner), b); err != nil {
						return err
					}
				}
				until[info.Owner] = t
			}
			if !t.After(now) {
				out = append(out, info)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	runtime.SortRunsOldestFirst(out)
	return out, nil
}
