package boltstore

import (
	"context"
	"fmt"
	"time"

	"github.com/quiver-go/quiver/registry/store"
)

// ReturnCall implements [store.Store].
func (s *Store) ReturnCall(ctx context.Context, callID, leaseID string) (store.Call, error) {
	var out store.Call
	err := s.write(ctx, func(t *txn) error {
		c, ok, err := t.call(callID)
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("boltstore: return call %q: %w", callID, store.ErrUnknownCall)
		case c.State != store.CallPublished || c.LeaseID != leaseID:
			out = c
			return nil
		}
		if err := t.del(bucketPublished, publishedKey(c.LeaseID, c.ID)); err != nil {
			return err
		}
		c.State, c.LeaseID, c.PublishedAt = store.CallAccepted, "", time.Time{}
		out = c
		return t.putJSON(bucketCalls, c.ID, c)
	})
	if err != nil {
		return store.Call{}, err
	}
	return out, nil
}
