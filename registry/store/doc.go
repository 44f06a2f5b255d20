// Package store defines what the tool registry keeps and the atomic
// operations on it: registrations and their leases, the catalog revision and
// its change log, and call records with their state machine (accepted →
// published → settled). The embedded implementation is
// registry/store/boltstore; every implementation passes the conformance
// suite in registry/store/storetest.
//
// Invariants every implementation keeps:
//   - One active registration per toolset; at most one pending replacement.
//   - A call is published to one lease at most, once; published is durable
//     before the call's frame is written, so a crash never re-routes a call
//     a provider may have received.
//   - The first outcome of a call wins.
//   - Lease expiry is read on the store's clock.
package store
