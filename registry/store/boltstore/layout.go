package boltstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"
)

// The buckets; doc.go describes what each holds.
var (
	bucketMeta      = []byte("meta")
	bucketActive    = []byte("active")
	bucketPending   = []byte("pending")
	bucketLeases    = []byte("leases")
	bucketChanges   = []byte("changes")
	bucketCalls     = []byte("calls")
	bucketUnsettled = []byte("unsettled")
	bucketSettled   = []byte("settled")
	bucketPublished = []byte("published")
	// bucketTokens holds each active registration's token and revision,
	// so that admitting a call does not decode its registration (the
	// declaration inside it is the size of the toolset's schemas).
	bucketTokens = []byte("tokens")
)

// Keys of the meta bucket.
var (
	keyFormat   = []byte("format")
	keyRevision = []byte("revision")
)

// format is the layout version this package reads and writes.
const format = "1"

// initLayout creates the buckets of a new file and checks the format of an
// existing one.
func initLayout(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketMeta, bucketActive, bucketPending, bucketLeases,
		bucketChanges, bucketCalls, bucketUnsettled, bucketSettled, bucketPublished, bucketTokens} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(bucketMeta)
	switch got := meta.Get(keyFormat); {
	case got == nil:
		return meta.Put(keyFormat, []byte(format))
	case string(got) != format:
		return fmt.Errorf("data format %q, this build reads format %s", got, format)
	}
	return nil
}

// timeKey orders records by time, then id: big-endian nanoseconds with the
// sign bit flipped, so times before 1970 sort first too.
func timeKey(t time.Time, id string) []byte {
	k := make([]byte, 8, 8+len(id))
	binary.BigEndian.PutUint64(k, uint64(t.UnixNano())^(1<<63))
	return append(k, id...)
}

// timeOfKey reads the time of a timeKey.
func timeOfKey(k []byte) time.Time {
	return time.Unix(0, int64(binary.BigEndian.Uint64(k)^(1<<63)))
}

// revisionKey is a change's key: its revision, big-endian.
func revisionKey(rev uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, rev)
}

// publishedPrefix starts the keys of the calls published to a lease. Lease
// ids are the store's own and hold no zero byte.
func publishedPrefix(leaseID string) []byte {
	return append([]byte(leaseID), 0)
}

// publishedKey indexes a call published to a lease.
func publishedKey(leaseID, callID string) []byte {
	return append(publishedPrefix(leaseID), callID...)
}

// getJSON decodes the record under key into v; false when there is none.
func getJSON(tx *bbolt.Tx, bucket []byte, key string, v any) (bool, error) {
	data := tx.Bucket(bucket).Get([]byte(key))
	if data == nil {
		return false, nil
	}
	return true, decode(bucket, []byte(key), data, v)
}

// decode decodes the record under key.
func decode(bucket, key, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("boltstore: %s %q: corrupt record: %w", bucket, key, err)
	}
	return nil
}

// revision reads the catalog revision.
func revision(tx *bbolt.Tx) uint64 {
	v := tx.Bucket(bucketMeta).Get(keyRevision)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// txn is one operation's share of a write transaction. It records whether
// the operation wrote, so the committer knows whether a failing operation
// left the transaction as it found it.
type txn struct {
	tx             *bbolt.Tx
	now            time.Time
	changeLogLimit int
	wrote          bool
}

func (t *txn) put(bucket, key, value []byte) error {
	t.wrote = true
	if err := t.tx.Bucket(bucket).Put(key, value); err != nil {
		return fmt.Errorf("boltstore: write %s %q: %w", bucket, key, err)
	}
	return nil
}

func (t *txn) putJSON(bucket []byte, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("boltstore: encode %s %q: %w", bucket, key, err)
	}
	return t.put(bucket, []byte(key), data)
}

func (t *txn) del(bucket, key []byte) error {
	t.wrote = true
	if err := t.tx.Bucket(bucket).Delete(key); err != nil {
		return fmt.Errorf("boltstore: delete %s %q: %w", bucket, key, err)
	}
	return nil
}

// keysWithPrefix lists the keys of bucket that start with prefix; callers
// change the bucket after listing, not while a cursor walks it.
func (t *txn) keysWithPrefix(bucket, prefix []byte) [][]byte {
	var keys [][]byte
	c := t.tx.Bucket(bucket).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	return keys
}
