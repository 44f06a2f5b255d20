// Package boltstore is the embedded [store.Store]: one bbolt file, for a
// registry running as one process.
//
//	s, err := boltstore.Open(filepath.Join(dataDir, "registry.db"))
//
// A second process opening the same file fails with [ErrInUse] once the
// open timeout ([WithOpenTimeout]) has passed.
//
// # Writes
//
// Every write is durable when it returns: the file is synced on every
// commit, never skipped. One committer goroutine takes a write, drains the
// writes already waiting (256 at most) without waiting for more, applies
// them in one transaction and answers each caller after the commit, so
// concurrent writers share one sync. A write checks its preconditions
// before it writes, so one that fails leaves the transaction to the
// others; if a write fails after writing (an I/O or encoding error), the
// batch is rolled back and each of its writes committed alone. When the
// commit itself fails, every write of the batch gets the error. Reads run
// in read-only transactions of their own, beside the committer.
//
// # Layout
//
// Buckets, keys and values (records are JSON):
//
//	meta       "format" → "1"; "revision" → catalog revision, big-endian uint64
//	active     toolset → active store.Registration
//	pending    toolset → pending replacement store.Registration
//	leases     lease id → store.Lease, until the lease ends
//	changes    revision, big-endian uint64 → store.Change (the most recent ones)
//	calls      call id → store.Call
//	unsettled  accepted-at + call id → empty: accepted and published calls
//	settled    settled-at + call id → empty: for PurgeSettled
//	published  lease id + 0x00 + call id → empty: unsettled calls published
//	           to a lease, for Release and ExpireLeases
//
// Times in keys are big-endian Unix nanoseconds with the sign bit flipped,
// so keys sort by time. Ended leases are deleted: a lease is live while its
// record exists and the store's clock has not passed its ExpiresAt.
//
// # Choices the interface leaves open
//
//   - A lease past its expiry is not live (Renew, Drain and PublishCall
//     refuse it, AcceptCall does not assign to it, Catalog does not list
//     it) even before ExpireLeases or Register ends it.
//   - A replacement activates when no lease is left on the active
//     registration, expired ones included: ExpireLeases or Register ends
//     those first.
//   - A lease joining the active registration while a replacement is
//     pending joins it draining: a restarted replica of the old revision
//     must not hold the replacement back.
//   - Draining leases stay draining when their registration activates.
//   - Changes returns no changes with reset; an after beyond the current
//     revision is a reset too.
//   - AcceptCall keeps the caller's AcceptedAt, or stamps the store's clock
//     when it is zero; PublishedAt and SettledAt are the store's clock.
//   - The outcome of a call published to a lease past its expiry is
//     accepted until the lease is ended.
package boltstore
