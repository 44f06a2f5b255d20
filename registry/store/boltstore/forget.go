package boltstore

import (
	"context"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/registry/store"
)

// Keys of the meta bucket holding where ForgetSettled stopped, per kind:
// the settled-index key of the last call it forgot.
var (
	keyForgotResults  = []byte("forgot-results")
	keyForgotPayloads = []byte("forgot-payloads")
)

// ForgetSettled implements [store.Store]. A read finds first whether
// anything is to be forgotten: the server asks at every maintenance pass,
// and a write transaction would sync the file each time.
func (s *Store) ForgetSettled(ctx context.Context, results, payloads time.Time) (int, error) {
	var due bool
	err := s.read(ctx, func(tx *bbolt.Tx) error {
		for _, kind := range []struct {
			mark   []byte
			before time.Time
		}{{keyForgotResults, results}, {keyForgotPayloads, payloads}} {
			if kind.before.IsZero() {
				continue
			}
			if k := nextAfter(tx.Bucket(bucketSettled).Cursor(), tx.Bucket(bucketMeta).Get(kind.mark)); k != nil && timeOfKey(k).Before(kind.before) {
				due = true
			}
		}
		return nil
	})
	if err != nil || !due {
		return 0, err
	}
	var n int
	err = s.write(ctx, func(t *txn) error {
		changed := map[string]*store.Call{}
		for _, kind := range []struct {
			mark   []byte
			before time.Time
			forget func(c *store.Call)
		}{
			// A failure's kind and recovery stay, with its outcome (see
			// store.Store.ForgetSettled).
			{keyForgotResults, results, func(c *store.Call) { c.Result, c.Error, c.ResultForgotten = nil, "", true }},
			{keyForgotPayloads, payloads, func(c *store.Call) { c.Payload, c.PayloadForgotten = nil, true }},
		} {
			if kind.before.IsZero() {
				continue
			}
			meta := t.tx.Bucket(bucketMeta)
			cur := t.tx.Bucket(bucketSettled).Cursor()
			var last []byte
			k := nextAfter(cur, meta.Get(kind.mark))
			for ; k != nil && timeOfKey(k).Before(kind.before); k, _ = cur.Next() {
				id := string(k[8:])
				c := changed[id]
				if c == nil {
					rec, ok, err := t.call(id)
					if err != nil {
						return err
					}
					if !ok {
						continue
					}
					c = &rec
				}
				kind.forget(c)
				changed[id] = c
				last = append(last[:0], k...)
			}
			if last != nil {
				if err := meta.Put(kind.mark, last); err != nil {
					return err
				}
			}
		}
		for id, c := range changed {
			if err := t.putJSON(bucketCalls, id, c); err != nil {
				return err
			}
		}
		n = len(changed)
		return nil
	})
	return n, err
}

// nextAfter moves cur to the first settled-index key after mark (the first
// of all when mark is nil) and returns it.
func nextAfter(cur *bbolt.Cursor, mark []byte) []byte {
	if mark == nil {
		k, _ := cur.First()
		return k
	}
	k, _ := cur.Seek(mark)
	if k != nil && string(k) == string(mark) {
		k, _ = cur.Next()
	}
	return k
}
