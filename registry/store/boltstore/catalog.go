package boltstore

import (
	"encoding/binary"

	"go.etcd.io/bbolt"

	"github.com/quiver-go/quiver/registry/store"
)

// registration reads the active (bucketActive) or pending (bucketPending)
// registration of a toolset.
func (t *txn) registration(bucket []byte, toolset string) (store.Registration, bool, error) {
	var r store.Registration
	ok, err := getJSON(t.tx, bucket, toolset, &r)
	return r, ok, err
}

// changeCatalog records one change of the set of active registrations: the
// revision grows by one, the change is logged and the log trimmed to its
// limit.
func (t *txn) changeCatalog(toolset string, kind store.ChangeKind, fx *store.Effects) error {
	rev := revision(t.tx) + 1
	if err := t.put(bucketMeta, keyRevision, binary.BigEndian.AppendUint64(nil, rev)); err != nil {
		return err
	}
	change := store.Change{Revision: rev, Toolset: toolset, Kind: kind}
	if err := t.putJSON(bucketChanges, string(revisionKey(rev)), change); err != nil {
		return err
	}
	fx.Revision = rev
	if rev <= uint64(t.changeLogLimit) {
		return nil
	}
	// Usually one change to drop; more when the limit was lowered since.
	oldestKept := revisionKey(rev - uint64(t.changeLogLimit) + 1)
	var drop [][]byte
	c := t.tx.Bucket(bucketChanges).Cursor()
	for k, _ := c.First(); k != nil && string(k) < string(oldestKept); k, _ = c.Next() {
		drop = append(drop, append([]byte(nil), k...))
	}
	for _, k := range drop {
		if err := t.del(bucketChanges, k); err != nil {
			return err
		}
	}
	return nil
}

// readChanges reads the changes after revision after; reset when the one
// right after it was dropped, or when after is beyond the current revision
// (the caller saw a history this store does not have).
func readChanges(tx *bbolt.Tx, after uint64) (changes []store.Change, rev uint64, reset bool, err error) {
	rev = revision(tx)
	switch {
	case after > rev:
		return nil, rev, true, nil
	case after == rev:
		return nil, rev, false, nil
	}
	c := tx.Bucket(bucketChanges).Cursor()
	first, _ := c.First()
	if first == nil || binary.BigEndian.Uint64(first) > after+1 {
		return nil, rev, true, nil
	}
	for k, v := c.Seek(revisionKey(after + 1)); k != nil; k, v = c.Next() {
		var ch store.Change
		if err := decode(bucketChanges, k, v, &ch); err != nil {
			return nil, 0, false, err
		}
		changes = append(changes, ch)
	}
	return changes, rev, false, nil
}

// activeRegistrations reads the active registrations, sorted by toolset
// (the bucket's key order).
func activeRegistrations(tx *bbolt.Tx) ([]store.Registration, error) {
	var regs []store.Registration
	err := tx.Bucket(bucketActive).ForEach(func(k, v []byte) error {
		var r store.Registration
		if err := decode(bucketActive, k, v, &r); err != nil {
			return err
		}
		regs = append(regs, r)
		return nil
	})
	return regs, err
}
